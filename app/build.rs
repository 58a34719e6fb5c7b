//! The wasm build links with `--emit-relocs`: the post-build splitter (scripts/wasm-split.sh,
//! trunk's post_build hook) moves code between modules by rewriting the linker's relocations.
//! Only this crate's link: a RUSTFLAGS change would rebuild every dependency.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    if std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() == Ok("wasm32") {
        println!("cargo:rustc-link-arg-bins=--emit-relocs");
    }
}
