use knotmeter::bench;

#[bench(args = [&mut Vec::new()])]
fn push(v: &mut Vec<u8>) {
    v.push(1);
}

fn main() {}
