#!/usr/bin/env python3
"""spotify_fake.py — Spotify's accounts service and the one Web API call the replica test makes.

Usage: spotify_fake.py PORT REFRESH_TOKEN

POST /api/token rotates the refresh token on every refresh, as Spotify does. A refresh token
used a second time is what signs an account out: it answers invalid_grant and revokes the
grant (every later refresh fails too), and counts as "reused". GET /v1/me/player answers 204
(nothing playing) to the current access token and 401 to any other. GET /stats tells the test
how many refreshes and reuses there were.
"""
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs

SCOPES = ("user-read-playback-state user-read-currently-playing user-read-recently-played user-top-read "
          "playlist-read-private playlist-read-collaborative user-library-read user-modify-playback-state "
          "playlist-modify-private playlist-modify-public user-library-modify")
lock = threading.Lock()
state = {"refresh": sys.argv[2], "access": "", "n": 0, "refreshes": 0, "reused": 0, "revoked": False,
         "api_calls": 0, "unauthorized": 0}


class Handler(BaseHTTPRequestHandler):
    def reply(self, code, body=None):
        data = json.dumps(body).encode() if body is not None else b""
        self.send_response(code)
        if body is not None:
            self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        if self.path != "/api/token":
            return self.reply(404, {"error": "not_found"})
        form = parse_qs(self.rfile.read(int(self.headers.get("Content-Length", "0"))).decode())
        # A slow token endpoint widens the window in which two refreshers would overlap.
        time.sleep(0.5)
        with lock:
            token = form.get("refresh_token", [""])[0]
            if token != state["refresh"]:
                state["reused"] += 1
                state["revoked"] = True
            if state["revoked"]:
                return self.reply(400, {"error": "invalid_grant", "error_description": "Refresh token revoked"})
            state["n"] += 1
            state["refreshes"] += 1
            state["refresh"] = "refresh-%d" % (state["n"] + 1)
            state["access"] = "access-%d" % state["n"]
            return self.reply(200, {"access_token": state["access"], "token_type": "Bearer", "expires_in": 3600,
                                    "refresh_token": state["refresh"], "scope": SCOPES})

    def do_GET(self):
        if self.path == "/stats":
            with lock:
                return self.reply(200, dict(state))
        if self.path.startswith("/v1/me/player"):
            with lock:
                ok = state["access"] != "" and self.headers.get("Authorization") == "Bearer " + state["access"]
                state["api_calls" if ok else "unauthorized"] += 1
            return self.reply(204) if ok else self.reply(401, {"error": {"status": 401, "message": "Invalid access token"}})
        return self.reply(404, {"error": "not_found"})

    def log_message(self, *args):
        pass


ThreadingHTTPServer(("0.0.0.0", int(sys.argv[1])), Handler).serve_forever()
