//! A third-party client: Neovim 0.7 (Debian's package, `vim.lsp.start_client`, headless)
//! attaches to a bench file, receives the code lenses, runs a benchmark that does not compile
//! and receives the compiler error as a diagnostic.
//!
//! `.ci/run` installs Neovim; elsewhere `apt-get install neovim`.

use crate::common;

use std::process::Command;

use serde_json::Value;

#[test]
fn neovim_receives_code_lenses_and_diagnostics() {
    let nvim = Command::new("nvim").arg("--version").output();
    assert!(
        nvim.is_ok_and(|o| o.status.success()),
        "this test needs Neovim on PATH (apt-get install neovim)"
    );
    let fx = common::fixture("basic");
    let broken = fx.read("benches/nested/child.rs").replace(
        "basic_fixture::work(knotmeter::black_box(20))",
        "undefined_function()",
    );
    fx.write("benches/nested/child.rs", &broken);
    let out = fx.path("received.json");
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/neovim/client.lua");
    let status = common::command_in("nvim", &fx.root())
        .args(["--headless", "-u", "NONE", "-i", "NONE", "-n"])
        .arg("-c")
        .arg(format!("luafile {}", script.display()))
        .env("KNOTMETER_BIN", common::knotmeter())
        .env("KNOTMETER_NVIM_ROOT", fx.root())
        .env("KNOTMETER_NVIM_OUT", &out)
        .env("XDG_STATE_HOME", fx.path("nvim-state"))
        .env("XDG_CACHE_HOME", fx.path("nvim-cache"))
        .status()
        .expect("nvim runs");
    assert!(status.success(), "{status:?}");
    let received: Value =
        serde_json::from_str(&std::fs::read_to_string(&out).expect("the script wrote its report"))
            .unwrap();
    assert_eq!(received["errors"], serde_json::json!([]), "{received:#}");
    assert_eq!(received["initialized"], true);
    let titles: Vec<&str> = received["lenses"]
        .as_array()
        .unwrap_or_else(|| panic!("{received:#}"))
        .iter()
        .map(|l| l["command"]["title"].as_str().unwrap())
        .collect();
    // Each benchmark's three lenses run through the server's own command, so they work in any
    // client: a run, a comparison with the base build (`knotmeter compare`) and a profile.
    assert_eq!(
        titles,
        [
            "▶ Run",
            "⇄ Compare with base",
            "◔ Profile",
            "▶ Run",
            "⇄ Compare with base",
            "◔ Profile"
        ],
        "{received:#}"
    );
    let errors: Vec<&Value> = received["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| {
            d["uri"]
                .as_str()
                .unwrap()
                .ends_with("benches/nested/child.rs")
        })
        .flat_map(|d| d["diagnostics"].as_array().unwrap())
        .filter(|d| d["severity"] == 1)
        .collect();
    assert!(!errors.is_empty(), "{received:#}");
    assert!(
        errors[0]["message"]
            .as_str()
            .unwrap()
            .contains("undefined_function"),
        "{received:#}"
    );
    assert_eq!(errors[0]["range"]["start"]["line"], 4);
    assert!(
        received["buffer_diagnostics"].as_u64().unwrap() >= 1,
        "{received:#}"
    );
}
