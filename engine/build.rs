//! Records the compiler and profile for the reproducibility manifest.

use std::process::Command;

fn main() {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = Command::new(&rustc)
        .arg("--version")
        .output()
        .ok()
        .filter(|out| out.status.success())
        .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_owned())
        .unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=KNOTMETER_RUSTC_VERSION={version}");
    for (var, name) in [
        ("TARGET", "KNOTMETER_TARGET"),
        ("PROFILE", "KNOTMETER_PROFILE"),
        ("OPT_LEVEL", "KNOTMETER_OPT_LEVEL"),
    ] {
        let value = std::env::var(var).unwrap_or_else(|_| "unknown".into());
        println!("cargo:rustc-env={name}={value}");
    }
    println!("cargo:rerun-if-env-changed=RUSTC");
}
