//! The page's files, embedded at build time (`build.rs`), or read from a folder during
//! development (`qizero serve --assets-dir`). Only names in the table, or plain file names
//! listed in that folder, are ever served: a request names a file, never a path.

use std::path::Path;

include!(concat!(env!("OUT_DIR"), "/assets.rs"));

/// The bytes of the embedded file `name`.
#[must_use]
pub fn embedded(name: &str) -> Option<&'static [u8]> {
    FILES.iter().find(|(n, _)| *n == name).map(|(_, bytes)| *bytes)
}

/// The bytes of file `name` in `dir`, if `name` is a plain file name that `dir` lists.
#[must_use]
pub fn from_dir(dir: &Path, name: &str) -> Option<Vec<u8>> {
    let listed = std::fs::read_dir(dir)
        .ok()?
        .filter_map(Result::ok)
        .any(|e| e.file_name().to_str() == Some(name) && e.file_type().is_ok_and(|t| t.is_file()));
    if !listed {
        return None;
    }
    std::fs::read(dir.join(name)).ok()
}

/// The content type of a file, by its extension.
#[must_use]
pub fn content_type(name: &str) -> &'static str {
    match name.rsplit_once('.').map(|(_, ext)| ext) {
        Some("html") => "text/html; charset=utf-8",
        Some("js" | "mjs") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("json") => "application/json",
        Some("ico") => "image/x-icon",
        _ => "application/octet-stream",
    }
}
