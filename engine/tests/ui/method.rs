use knotmeter::bench;

struct Parser;

impl Parser {
    #[bench]
    fn parse(&self) -> u64 {
        1
    }
}

fn main() {}
