//! Makes the large database of the issue-18 benchmark: `repeat_database DB.cbh TIMES DIR`
//! writes `DIR/<name>x<TIMES>.*`, DB's game records repeated TIMES times with shifted offsets.

#[path = "../benches/support/repeat.rs"]
mod repeat;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [db, times, dir] = args.as_slice() else {
        eprintln!("usage: repeat_database DB.cbh TIMES DIR");
        std::process::exit(2);
    };
    let Ok(times) = times.parse() else {
        eprintln!("TIMES must be a number");
        std::process::exit(2);
    };
    match repeat::repeated_database(db.as_ref(), times, dir.as_ref()) {
        Ok(p) => println!("{}", p.display()),
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    }
}
