use knotmeter::bench;

struct Config {
    size: usize,
}

#[bench(args = [Config { size: 1 }])]
fn build(config: Config) -> usize {
    config.size
}

fn main() {}
