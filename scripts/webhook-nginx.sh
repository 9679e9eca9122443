# Sourced by the webhook benchmarks: `webhook_nginx_start DIR PORT` serves
# https://localhost:PORT/hooks/* from nginx with a trustme certificate
# (its CA at DIR/ca.pem), answering 204 with keep-alive and logging each
# request's time, path and webhook-id to DIR/hooks.log: a receiver that is
# not the bottleneck. WEBHOOK_NGINX is its pid (the caller stops it).
webhook_nginx_start() {
  local dir=$1 port=$2 user_line=""
  command -v nginx >/dev/null || { echo "webhook-nginx.sh: nginx not found (scripts/setup.sh --tests installs it)" >&2; exit 1; }
  python3 - "$dir" <<'PY'
import os, sys, trustme
work = sys.argv[1]
ca = trustme.CA()
ca.cert_pem.write_to_path(os.path.join(work, "ca.pem"))
cert = ca.issue_cert("localhost", "127.0.0.1")
cert.private_key_pem.write_to_path(os.path.join(work, "key.pem"))
with open(os.path.join(work, "cert.pem"), "wb") as out:
    out.write(b"".join(blob.bytes() for blob in cert.cert_chain_pems))
PY
  mkdir -p "$dir/nginx"
  [ "$(id -u)" -eq 0 ] && user_line="user root;"
  cat > "$dir/nginx.conf" <<CONF
$user_line
worker_processes 1;
daemon off;
pid $dir/nginx.pid;
error_log $dir/nginx-error.log warn;
events { worker_connections 4096; }
http {
  client_body_temp_path $dir/nginx/body;
  proxy_temp_path $dir/nginx/proxy;
  fastcgi_temp_path $dir/nginx/fastcgi;
  uwsgi_temp_path $dir/nginx/uwsgi;
  scgi_temp_path $dir/nginx/scgi;
  log_format hooks '\$msec \$uri \$http_webhook_id \$status';
  access_log $dir/hooks.log hooks;
  keepalive_requests 1000000;
  keepalive_timeout 120s;
  server {
    listen 127.0.0.1:$port ssl;
    ssl_certificate $dir/cert.pem;
    ssl_certificate_key $dir/key.pem;
    location /hooks/ { return 204; }
  }
}
CONF
  nginx -p "$dir/nginx" -c "$dir/nginx.conf" -e "$dir/nginx-error.log" &
  WEBHOOK_NGINX=$!
  for _ in $(seq 1 100); do curl -s --cacert "$dir/ca.pem" -o /dev/null "https://localhost:$port/" && break; sleep 0.1; done
}
