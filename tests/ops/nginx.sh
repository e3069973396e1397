#!/usr/bin/env bash
# The shipped nginx config (deploy/nginx/baduk.conf) in front of a real `baduk serve`, checked
# end to end: TLS, HTTP redirected to HTTPS, the session cookie Secure behind the trusted proxy,
# a game's WebSocket through the proxy, /internal/ and /metrics kept inside, the security headers
# once each, and a client's own
# X-Forwarded-For never reaching the server (the login limit counts the real address however many
# addresses a client claims).
# Installs nginx (Debian's nginx-light) if missing. BADUK_BIN: the binary (default
# target/debug/baduk).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
if ! command -v nginx >/dev/null 2>&1 && [ ! -x /usr/sbin/nginx ]; then
  echo "== installing nginx"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx-light >/dev/null
fi
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
BIN=${BADUK_BIN:-$ROOT/target/debug/baduk}

TMP=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  if [ -f "$TMP/nginx.pid" ]; then kill "$(cat "$TMP/nginx.pid")" 2>/dev/null || true; fi
  wait 2>/dev/null || true
  rm -rf "$TMP"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; echo "--- nginx error log" >&2; cat "$TMP/error.log" >&2 || true; echo "--- server log" >&2; cat "$TMP/serve.log" >&2 || true; exit 1; }

port() { python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])'; }
APP=$(port); HTTP=$(port); HTTPS=$(port)

# A self-signed certificate for 127.0.0.1.
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj "/CN=127.0.0.1" \
  -keyout "$TMP/privkey.pem" -out "$TMP/fullchain.pem" >/dev/null 2>&1

# The shipped site file with this run's ports and paths, inside a minimal main config.
sed -e "s|server 127.0.0.1:8080;|server 127.0.0.1:$APP;|" \
    -e "s|listen 80;|listen 127.0.0.1:$HTTP;|" -e "/listen \[::\]:80;/d" \
    -e "s|listen 443 ssl;|listen 127.0.0.1:$HTTPS ssl;|" -e "/listen \[::\]:443 ssl;/d" \
    -e "s|/etc/ssl/baduk/|$TMP/|" \
    deploy/nginx/baduk.conf >"$TMP/site.conf"
grep -q "127.0.0.1:$APP" "$TMP/site.conf" && grep -q "127.0.0.1:$HTTPS ssl" "$TMP/site.conf" \
  || fail "the shipped config no longer has the lines this test rewrites"
cat >"$TMP/nginx.conf" <<CONF
worker_processes 1;
pid $TMP/nginx.pid;
error_log $TMP/error.log warn;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path $TMP/body;
  proxy_temp_path $TMP/proxy;
  include $TMP/site.conf;
}
CONF
"$NGINX" -t -c "$TMP/nginx.conf" -p "$TMP" >/dev/null 2>&1 || { "$NGINX" -t -c "$TMP/nginx.conf" -p "$TMP"; fail "nginx -t"; }
"$NGINX" -c "$TMP/nginx.conf" -p "$TMP"

"$BIN" serve --addr "127.0.0.1:$APP" --database "sqlite:$TMP/ops.db" --trusted-proxy 127.0.0.1 \
  >"$TMP/serve.log" 2>&1 &
pids+=($!)
for _ in $(seq 150); do
  curl -fsS "http://127.0.0.1:$APP/healthz" >/dev/null 2>&1 && break
  sleep 0.1
done
BASE="https://127.0.0.1:$HTTPS"
C=(curl -sS -k --max-time 10)

echo "== TLS through nginx"
[ "$("${C[@]}" "$BASE/healthz")" = ok ] || fail "/healthz over TLS"

echo "== plain HTTP is redirected to HTTPS"
loc=$("${C[@]}" -o /dev/null -w '%{http_code} %{redirect_url}' "http://127.0.0.1:$HTTP/lobby?x=1")
case "$loc" in "301 https://127.0.0.1/lobby?x=1") ;; *) fail "redirect: $loc" ;; esac

echo "== the session cookie is Secure behind the trusted proxy"
hdr=$("${C[@]}" -D - -o "$TMP/signup.json" -H 'content-type: application/json' \
  -d '{"username": "proxied", "password": "behind-the-proxy-9"}' "$BASE/api/auth/signup")
grep -i '^set-cookie: baduk_session=' <<<"$hdr" | grep -i '; *secure' >/dev/null || fail "cookie not Secure: $hdr"
grep -qi '^HTTP/1.1 201' <<<"$hdr" || fail "signup: $hdr"

echo "== a game's WebSocket through the proxy"
game=$("${C[@]}" -H 'content-type: application/json' \
  -d '{"game": "go", "size": 9, "rules": "chinese", "seats": {"black": {"kind": "human"}, "white": {"kind": "human"}}}' \
  "$BASE/api/games" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
ws=$(curl -sS -k -N --http1.1 --max-time 3 -D - \
  -H 'Connection: Upgrade' -H 'Upgrade: websocket' -H 'Sec-WebSocket-Version: 13' \
  -H 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==' "$BASE/ws/games/$game" 2>/dev/null | tr -d '\0' || true)
grep -q '^HTTP/1.1 101' <<<"$ws" || fail "no 101 through the proxy: $(echo "$ws" | head -3)"
grep -q '"type":"state"' <<<"$ws" || fail "no state message through the proxy"

echo "== /internal/ and /metrics are not served to the outside"
for path in /internal/forward/api/games/$game/actions /metrics; do
  code=$("${C[@]}" -o /dev/null -w '%{http_code}' "$BASE$path")
  [ "$code" = 404 ] || fail "$path through the proxy: $code"
done
# The server answers /metrics on its own address to a loopback client that came direct (no
# proxy's X-Forwarded-For): Prometheus beside it.
grep -q '^baduk_games_owned ' <<<"$(curl -fsS "http://127.0.0.1:$APP/metrics")" || fail "/metrics on the server's own address"

echo "== security headers, once each, on pages, the API and nginx's own answers"
# The policy nginx sends is the server's own (one list, two copies).
app_csp=$(curl -sS -D - -o /dev/null "http://127.0.0.1:$APP/" | tr -d '\r' | sed -n 's/^content-security-policy: //Ip')
[ -n "$app_csp" ] || fail "the server sends no Content-Security-Policy"
for path in / /api/games /g/$game /metrics /internal/forward/x /nothing-here; do
  hdr=$("${C[@]}" -D - -o /dev/null "$BASE$path" | tr -d '\r')
  for want in "content-security-policy: $app_csp" "x-frame-options: DENY" \
      "x-content-type-options: nosniff" "referrer-policy: same-origin"; do
    n=$(echo "$hdr" | grep -ci "^${want%%:*}:" || true)
    [ "$n" = 1 ] || fail "$path: ${want%%:*} sent $n times"
    grep -qiF "$want" <<<"$hdr" || fail "$path: no '$want' in: $hdr"
  done
done
grep -q "script-src 'self'" <<<"$app_csp" || fail "CSP without script-src 'self': $app_csp"
grep -q "frame-ancestors 'none'" <<<"$app_csp" || fail "CSP without frame-ancestors 'none': $app_csp"

echo "== a client's own X-Forwarded-For does not reach baduk"
# Ten sign-in attempts a minute from one address: the eleventh is refused however many
# addresses the client claims (nginx replaces the header with the real one).
codes=""
for i in $(seq 11); do
  codes+=$("${C[@]}" -o /dev/null -w '%{http_code} ' -H 'content-type: application/json' \
    -H "X-Forwarded-For: 10.0.0.$i" -d "{\"username\": \"nobody$i\", \"password\": \"wrong-password\"}" \
    "$BASE/api/auth/login")
done
case "$codes" in "401 401 401 401 401 401 401 401 401 401 429 ") ;; *) fail "login limit keyed by a claimed address: $codes" ;; esac

echo "ok: nginx in front of baduk (TLS, redirect, Secure cookie, WebSocket, security headers, real client address)"
