#!/usr/bin/env python3
"""google_fake.py — the three Google API calls the container test makes, one per Google server.

Usage: google_fake.py PORT ACCESS_TOKEN

Answers, to the access token given (Google's 401 error body to any other, as the APIs do):
  GET /gmail/v1/users/me/profile            Gmail's profile (gmail's get_gmail_profile)
  GET /calendar/v3/users/me/calendarList    one calendar (calendar's list_calendars)
  GET /drive/v3/files                       one file (drive's search_files)
and anything else Google's 404. GET /stats counts the answered calls per API and the refused
ones, so the test knows each server's call reached here with the token from its volume.
"""
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

TOKEN = sys.argv[2]
lock = threading.Lock()
stats = {"gmail": 0, "calendar": 0, "drive": 0, "unauthorized": 0, "not_found": 0}
ANSWERS = {
    "/gmail/v1/users/me/profile": ("gmail", {
        "emailAddress": "ada@example.com", "messagesTotal": 42, "threadsTotal": 40, "historyId": "1001"}),
    "/calendar/v3/users/me/calendarList": ("calendar", {
        "kind": "calendar#calendarList",
        "items": [{"kind": "calendar#calendarListEntry", "id": "ada@example.com", "summary": "Container calendar",
                   "timeZone": "Europe/Berlin", "accessRole": "owner", "primary": True}]}),
    "/drive/v3/files": ("drive", {
        "kind": "drive#fileList", "incompleteSearch": False,
        "files": [{"kind": "drive#file", "id": "file-1", "name": "Container report.txt", "mimeType": "text/plain",
                   "size": "12", "modifiedTime": "2026-11-27T12:00:00.000Z", "parents": ["root"],
                   "webViewLink": "https://drive.google.com/file/d/file-1/view"}]}),
}


def google_error(code, status, message):
    return {"error": {"code": code, "message": message, "status": status,
                      "errors": [{"message": message, "domain": "global", "reason": status.lower()}]}}


class Handler(BaseHTTPRequestHandler):
    def reply(self, code, body):
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json; charset=UTF-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        path = urlsplit(self.path).path
        if path == "/stats":
            with lock:
                return self.reply(200, stats)
        if self.headers.get("Authorization") != "Bearer " + TOKEN:
            with lock:
                stats["unauthorized"] += 1
            return self.reply(401, google_error(401, "UNAUTHENTICATED", "Request had invalid authentication credentials."))
        if path not in ANSWERS:
            with lock:
                stats["not_found"] += 1
            return self.reply(404, google_error(404, "NOT_FOUND", "Not Found: " + path))
        api, body = ANSWERS[path]
        with lock:
            stats[api] += 1
        self.reply(200, body)

    def log_message(self, fmt, *args):
        sys.stderr.write("google_fake: " + (fmt % args) + "\n")


ThreadingHTTPServer(("0.0.0.0", int(sys.argv[1])), Handler).serve_forever()
