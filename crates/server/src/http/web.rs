//! The browser UI: the repository's `web/` folder, embedded in the binary at build time.

use axum::extract::Path;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use include_dir::{include_dir, Dir};

static WEB: Dir<'_> = include_dir!("$CARGO_MANIFEST_DIR/../../web");

fn content_type(path: &str) -> &'static str {
    match path.rsplit('.').next().unwrap_or("") {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "json" => "application/json",
        "ico" => "image/x-icon",
        "wav" => "audio/wav",
        "mp3" => "audio/mpeg",
        "ogg" => "audio/ogg",
        "woff2" => "font/woff2",
        _ => "application/octet-stream",
    }
}

fn file(path: &str) -> Response {
    match WEB.get_file(path) {
        Some(f) => (
            [
                (header::CONTENT_TYPE, content_type(path)),
                (header::CACHE_CONTROL, "no-cache"),
            ],
            f.contents(),
        )
            .into_response(),
        None => not_found_page(path),
    }
}

/// A page saying there is nothing at `path` (a 404 with a link back to the lobby).
pub fn not_found_page(path: &str) -> Response {
    let safe: String = path
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || "/-_.".contains(*c))
        .take(100)
        .collect();
    (
        StatusCode::NOT_FOUND,
        Html(format!(
            "<!doctype html><meta charset=utf-8><title>Not found · baduk</title>\
             <link rel=stylesheet href=/static/style.css><body class=bare><h1>Not found</h1>\
             <p>There is nothing at <code>{safe}</code>.</p><p><a href=\"/\">Back to the lobby</a></p>"
        )),
    )
        .into_response()
}

/// The page `name` of `web/` (a placeholder when the build has no web UI).
pub(crate) fn page(name: &str) -> Response {
    if WEB.get_file(name).is_some() {
        file(name)
    } else {
        Html(
            "<!doctype html><meta charset=utf-8><title>baduk</title>\
             <body><h1>baduk</h1>\
             <p>The server runs; the web UI is not in this build. The API is at <code>/api/games</code>.</p>",
        )
        .into_response()
    }
}

/// Routes of the pages and their files.
pub fn routes<S: Clone + Send + Sync + 'static>() -> Router<S> {
    Router::new()
        .route("/", get(|| async { page("index.html") }))
        .route(
            "/g/{id}",
            get(|Path(_id): Path<String>| async { page("game.html") }),
        )
        .route(
            "/static/{*path}",
            get(|Path(p): Path<String>| async move {
                if p.contains("..") {
                    return not_found_page(&p);
                }
                file(&p)
            }),
        )
        .route("/favicon.ico", get(|| async { file("favicon.ico") }))
        .route("/login", get(|| async { page("login.html") }))
        .route("/me", get(|| async { page("me.html") }))
        .route("/tournaments", get(|| async { page("tournaments.html") }))
        .route(
            "/t/{id}",
            get(|Path(_id): Path<String>| async { page("tournament.html") }),
        )
        .route("/ladders", get(|| async { page("ladder.html") }))
        .route(
            "/ladders/{kind}",
            get(|Path(_kind): Path<String>| async { page("ladder.html") }),
        )
        .route(
            "/@/{name}",
            get(|Path(_name): Path<String>| async { page("player.html") }),
        )
}

/// The Content-Security-Policy of every response: scripts, styles and connections from this
/// origin only (the pages have no inline script, style or handler), no framing, no plugins.
pub const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self'; \
    img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; \
    form-action 'self'; frame-ancestors 'none'";

/// The security headers every page and API response carries (docs/operating.md): the
/// [`CSP`], no framing, no MIME sniffing, the referrer kept to this origin.
pub const SECURITY_HEADERS: [(&str, &str); 4] = [
    ("content-security-policy", CSP),
    ("x-frame-options", "DENY"),
    ("x-content-type-options", "nosniff"),
    ("referrer-policy", "same-origin"),
];

/// Adds [`SECURITY_HEADERS`] to a response (a layer over the whole router).
pub async fn security_headers(mut res: Response) -> Response {
    let h = res.headers_mut();
    for (name, value) in SECURITY_HEADERS {
        h.insert(name, HeaderValue::from_static(value));
    }
    res
}
