"""A private nginx on a free loopback port in front of one Gatehouse process, configured the way
deploy/README.md prescribes: nginx passes the client's address in X-Forwarded-For, Gatehouse trusts
nginx's address (http.trusted_proxies = ["127.0.0.1/32"]).

The test clients all connect from 127.0.0.1, so nginx plays the edge of a larger set-up: its realip
module takes the client address from the X-Forwarded-For the test client sends (as it would from a
CDN or load balancer in front of it, `set_real_ip_from`), and forwards `$remote_addr` to Gatehouse.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time

import requests

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from conftest import free_port  # noqa: E402

CONFIG = """
worker_processes 2;
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;
events {{ worker_connections 2048; }}
http {{
    access_log off;
    client_body_temp_path {dir}/body;
    proxy_temp_path {dir}/proxy;
    fastcgi_temp_path {dir}/fastcgi;
    uwsgi_temp_path {dir}/uwsgi;
    scgi_temp_path {dir}/scgi;
    upstream gatehouse {{
        server 127.0.0.1:{upstream};
        keepalive 32;
    }}
    server {{
        listen 127.0.0.1:{port};
        # The edge in front of this nginx (here: the test client) is trusted to name the client.
        set_real_ip_from 127.0.0.1;
        real_ip_header X-Forwarded-For;
        real_ip_recursive on;
        location / {{
            proxy_pass http://gatehouse;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host $host;
            # Overwrite, never append what the client sent: Gatehouse reads the right-most hop.
            proxy_set_header X-Forwarded-For $remote_addr;
            proxy_set_header X-Forwarded-Proto $scheme;
        }}
    }}
}}
"""


class Nginx:
    def __init__(self, upstream_port):
        self.dir = tempfile.mkdtemp(prefix="gatehouse-nginx-")
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        path = os.path.join(self.dir, "nginx.conf")
        with open(path, "w") as f:
            f.write(CONFIG.format(dir=self.dir, port=self.port, upstream=upstream_port))
        self.conf = path
        subprocess.run(["nginx", "-t", "-q", "-c", path, "-p", self.dir, "-g", "user root;"], check=True)
        subprocess.run(["nginx", "-c", path, "-p", self.dir, "-g", "user root;"], check=True)
        deadline = time.time() + 10
        while time.time() < deadline:
            try:
                if requests.get(self.url + "/healthz", timeout=1).status_code == 200:
                    return
            except requests.RequestException:
                time.sleep(0.05)
        raise RuntimeError("nginx did not start: " + open(os.path.join(self.dir, "error.log")).read())

    def stop(self):
        subprocess.run(["nginx", "-c", self.conf, "-p", self.dir, "-g", "user root;", "-s", "stop"], check=False)
        time.sleep(0.2)
        shutil.rmtree(self.dir, ignore_errors=True)
