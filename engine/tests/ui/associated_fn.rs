use knotmeter::bench;

struct Parser;

impl Parser {
    #[bench]
    fn parse() -> u64 {
        1
    }
}

fn main() {}
