//! Discovery's speed, measured with knotmeter itself: `cargo bench -p knotmeter-server --bench
//! discovery`. Targets (docs/performance.md): 1000 benchmarks in 100 files discovered in under
//! 100 ms, and re-discovery after one file changed in under 5 ms.

use std::path::{Path, PathBuf};

use knotmeter::{bench, Bencher};
use knotmeter_server::discovery::{BenchTarget, Discovery, Package, Workspace};

/// A bench target of 100 files (the root and 99 modules), 10 benchmarks each, two of them
/// with `args`; written once under the system's temporary directory.
fn generated() -> (Workspace, PathBuf) {
    let root =
        std::env::temp_dir().join(format!("knotmeter-discovery-bench-{}", std::process::id()));
    let benches = root.join("benches");
    std::fs::create_dir_all(benches.join("generated")).unwrap();
    let file = |module: usize| {
        let mut text = String::from("use knotmeter::{bench, black_box, Bencher};\n\n");
        for f in 0..10 {
            match f {
                0 => text.push_str(&format!(
                    "/// Scales.\n#[bench(args = [10, 100, 1 << 10])]\nfn scaled_{module}_{f}(n: u64) -> u64 {{\n    (0..n).sum()\n}}\n\n"
                )),
                1 => text.push_str(&format!(
                    "#[bench(group = \"g{module}\", baseline)]\nfn grouped_{module}_{f}(b: &mut Bencher) {{\n    let v: Vec<u64> = (0..100).collect();\n    b.iter(|| v.iter().sum::<u64>());\n}}\n\n"
                )),
                _ => text.push_str(&format!(
                    "/// Plain.\n#[bench]\nfn plain_{module}_{f}() -> u64 {{\n    let x = black_box({f}u64);\n    x.wrapping_mul(31).rotate_left(3) ^ 0xdead_beef\n}}\n\n"
                )),
            }
        }
        text
    };
    let mut root_text = String::from("mod generated;\n\n");
    root_text.push_str(&file(0));
    root_text.push_str("knotmeter::main!();\n");
    std::fs::write(benches.join("many.rs"), root_text).unwrap();
    let mut modules = String::new();
    for module in 1..100 {
        modules.push_str(&format!("mod m{module};\n"));
        std::fs::write(
            benches.join("generated").join(format!("m{module}.rs")),
            file(module),
        )
        .unwrap();
    }
    std::fs::write(benches.join("generated.rs"), modules).unwrap();
    let workspace = Workspace {
        root: root.clone(),
        target_dir: root.join("target"),
        packages: vec![Package {
            name: "many".into(),
            manifest_path: root.join("Cargo.toml"),
            targets: vec![BenchTarget {
                name: "many".into(),
                crate_name: "many".into(),
                src_path: benches.join("many.rs"),
                harness: knotmeter_server::discovery::harness::Harness::Custom,
            }],
        }],
    };
    (workspace, benches.join("generated").join("m50.rs"))
}

fn check(workspace: &Workspace) {
    let tree = Discovery::new(workspace.clone()).tree();
    assert_eq!(tree.bench_count(), 1000);
    assert_eq!(tree.files.len(), 101);
}

/// Everything from scratch: read and parse 101 files, build the tree of 1000 benchmarks.
#[bench]
fn discover_1000_benches_in_100_files(b: &mut Bencher) {
    let (workspace, _) = generated();
    check(&workspace);
    b.iter(|| Discovery::new(workspace.clone()).tree().items().count());
    cleanup(&workspace.root);
}

/// The editor changed one file: parse it again and rebuild the tree from the cache.
#[bench]
fn rediscover_after_one_file_changed(b: &mut Bencher) {
    let (workspace, changed) = generated();
    let mut discovery = Discovery::new(workspace.clone());
    discovery.tree();
    let original = std::fs::read_to_string(&changed).unwrap();
    let edited = original.replace("0xdead_beef", "0xbeef_dead");
    let mut flip = false;
    b.iter(|| {
        flip = !flip;
        discovery.set_overlay(&changed, if flip { &edited } else { &original });
        discovery.tree().items().count()
    });
    cleanup(&workspace.root);
}

fn cleanup(root: &Path) {
    let _ = std::fs::remove_dir_all(root);
}

knotmeter::main!();
