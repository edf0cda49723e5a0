#!/usr/bin/env python3
"""Holds real responses of a running `catalog serve` to the OpenAPI document it serves.

    scripts/api_check.py BASE_URL [TOKEN]

With a TOKEN (a server with access control on), every request below carries it as a bearer
token, and the refusals without it (401, the session routes) are checked first.
Every request below is sent; its status must be one the document lists for the operation, its
JSON body must validate against the document's schema for that status, and catalog-dependent
200s must carry X-Catalog-Generation and ETag. Exits 1 on the first mismatch; prints
'N passed, 0 failed' at the end.
"""
import json
import sys
import urllib.error
import urllib.request

import jsonschema
import yaml
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

BASE = sys.argv[1].rstrip("/")
TOKEN = sys.argv[2] if len(sys.argv) > 2 else None


def fetch(path, method="GET", headers=None, body=None, authorized=True):
    headers = dict(headers or {})
    if TOKEN and authorized:
        headers.setdefault("Authorization", f"Bearer {TOKEN}")
    request = urllib.request.Request(BASE + path, method=method, headers=headers, data=body)
    try:
        with urllib.request.urlopen(request) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


status, _, raw = fetch("/api/openapi.yaml")
assert status == 200, status
document = yaml.safe_load(raw)
registry = Registry().with_resource("urn:api", Resource(contents=document, specification=DRAFT202012))


def absolute(node):
    """The document's local $refs, made absolute so a fragment validates on its own."""
    if isinstance(node, dict):
        return {k: ("urn:api" + v if k == "$ref" and v.startswith("#") else absolute(v)) for k, v in node.items()}
    if isinstance(node, list):
        return [absolute(v) for v in node]
    return node


def resolve(node):
    while isinstance(node, dict) and "$ref" in node:
        path = node["$ref"].lstrip("#/").split("/")
        node = document
        for part in path:
            node = node[part]
    return node


def operation(path):
    route = path.split("?")[0]
    for template, item in document["paths"].items():
        parts, actual = template.split("/"), route.split("/")
        if len(parts) == len(actual) and all(p == a or p.startswith("{") for p, a in zip(parts, actual)):
            return template, item
    return None, None


passed = 0


def check(path, expect, method="GET", headers=None, body=None, authorized=True):
    global passed
    status, response_headers, body = fetch(path, method, headers, body, authorized)
    assert status == expect, f"{method} {path}: status {status}, expected {expect}: {body[:200]!r}"
    template, item = operation(path)
    op = item.get(method.lower(), item.get("get")) if item else None
    if template is None:
        schema = document["components"]["schemas"]["Error"]
    else:
        responses = op["responses"]
        assert str(status) in responses, f"{path}: status {status} is not in the document's responses for {template}"
        response = resolve(responses[str(status)])
        content = response.get("content", {})
        if "application/json" not in content:
            passed += 1
            return body
        schema = content["application/json"]["schema"]
    assert response_headers.get("Content-Type", "").startswith("application/json"), f"{path}: {response_headers}"
    instance = json.loads(body)
    jsonschema.Draft202012Validator(absolute(schema), registry=registry).validate(instance)
    if status == 200 and template not in ("/api/health", "/api/openapi.yaml", "/api/session"):
        assert "X-Catalog-Generation" in response_headers, f"{path}: no generation header"
        assert "ETag" in response_headers, f"{path}: no ETag"
    passed += 1
    return instance


if TOKEN:
    for path in ["/api/page?width=375", "/api/items", "/api/stats", "/api/openapi.yaml", "/api/session", "/api/nothing/here"]:
        check(path, 401, authorized=False)
        status, headers, _ = fetch(path, authorized=False)
        assert headers.get("WWW-Authenticate", "").startswith("Bearer"), headers
    check("/api/health", 200, authorized=False)
    check("/api/session", 200)
    origin = BASE.split("/")[0] + "//" + BASE.split("/")[2]
    check("/api/session", 403, method="POST", headers={"Content-Type": "application/json"}, body=json.dumps({"token": TOKEN}).encode(), authorized=False)
    signed_in = check("/api/session", 200, method="POST", headers={"Content-Type": "application/json", "Origin": origin},
                      body=json.dumps({"token": TOKEN}).encode(), authorized=False)
    assert signed_in["signedIn"], signed_in
    check("/api/session", 415, method="POST", headers={"Content-Type": "text/plain", "Origin": origin}, body=b"x", authorized=False)
    check("/api/session", 200, method="DELETE", authorized=False)
else:
    check("/api/session", 200)
    check("/api/session", 409, method="POST", headers={"Content-Type": "application/json"}, body=b'{"token": "x"}')

page = check("/api/page?width=375&cols=2&height=2000", 200)
first = page["items"][0]["id"]
check("/api/page?width=1280&cols=5&style=grid&offset=100&sort=path", 200)
check("/api/page?width=414&style=list&extra-height=20", 200)
check(f"/api/page?width=375&item={first}", 200)
check("/api/page?width=0", 400)
check("/api/page?width=375&cols=99999", 400)
check("/api/page?width=375&bogus=1", 400)
check("/api/page?width=375&item=987654321", 404)
items = check("/api/items?limit=5&sort=path", 200)
assert items["total"] >= len(items["items"])
check("/api/items?limit=5000", 400)
check(f"/api/items/{first}", 200)
check("/api/items/987654321", 404)
check("/api/items/xyz", 400)
scanned = [item for item in check("/api/items?limit=1000", 200)["items"] if item["format"]]
assert scanned, "scripts/api-check scans images into the catalog it checks"
if scanned:
    status, headers, body = fetch(f"/api/items/{scanned[0]['id']}/original")
    assert status == 200 and headers["Content-Type"].startswith("image/") and len(body) == scanned[0]["bytes"], (status, headers)
    passed += 1
    check(f"/api/items/{scanned[0]['id']}/original", 206, headers={"Range": "bytes=0-3"})
    check(f"/api/items/{scanned[0]['id']}/original", 416, headers={"Range": "bytes=999999999-"})
    check(f"/api/items/{scanned[0]['id']}/original", 412, headers={"If-Match": '"not-its-tag"'})
    check(f"/api/items/{scanned[0]['id']}/original", 304, headers={"If-None-Match": headers["ETag"]})
    versions = {item["id"]: item["version"] for item in check("/api/page?width=375&cols=2&height=100000&sort=path", 200)["items"]}
    made = 0
    for item in scanned:
        status, headers, body = fetch(f"/api/items/{item['id']}/thumbnail?size=128&v={versions[item['id']]}")
        if status == 200:
            made += 1  # the broken fixtures give 422, checked below by schemathesis's "every status as documented"
            assert headers["Content-Type"] in ("image/jpeg", "image/png") and headers["Cache-Control"].endswith("immutable"), headers
            passed += 1
            check(f"/api/items/{item['id']}/thumbnail?size=128", 304, headers={"If-None-Match": headers["ETag"]})
        else:
            assert status in (404, 422), status
    assert made > 0, "at least one scanned image has a thumbnail"
    check(f"/api/items/{scanned[0]['id']}/thumbnail?size=100", 400)
imported = [item for item in check("/api/items?limit=1000", 200)["items"] if not item["format"]]
assert imported, "scripts/api-check imports items into the catalog it checks"
if imported:
    check(f"/api/items/{imported[0]['id']}/original", 404)
    check(f"/api/items/{imported[0]['id']}/thumbnail", 404)
generation = check("/api/stats", 200)["generation"]
changes = check(f"/api/changes?since={generation - 1}&sort=path", 200)
assert not changes["reload"] and changes["to"] == generation and len(changes["inserts"]) == 300, changes
check(f"/api/changes?since={generation + 5}", 200)
check("/api/changes?since=-1", 400)
check("/api/changes", 400)
check("/api/events?x=1", 400)
check("/api/layouts", 200)
check("/api/health", 200)
check("/api/nothing/here", 404)
check("/api/page?width=375", 405, method="POST")
check("/api/page?width=375", 405, method="DELETE")
status, headers, _ = fetch("/api/page?width=375")
check("/api/page?width=375", 304, headers={"If-None-Match": headers["ETag"]})
print(f"api-check: {passed} passed, 0 failed")
