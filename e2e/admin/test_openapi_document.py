"""The admin API's OpenAPI document as an integrator reads it: valid OpenAPI 3.1 (openapi-spec-validator),
every operation with a summary and tags and examples for what it takes and returns, an OAuth 2.0
clientCredentials scheme with the `admin` scope whose token URL really issues admin tokens, and `servers`
naming this deployment. schemathesis checks it against the implementation (test_admin_schemathesis.py)."""
import os
import sys

import pytest
import requests
from openapi_spec_validator import validate

sys.path.insert(0, os.path.dirname(__file__))
from admin_support import ADMIN_SECRET, start  # noqa: E402

METHODS = ("get", "post", "put", "patch", "delete")


@pytest.fixture(scope="module")
def server():
    process = start()
    yield process
    process.stop()


@pytest.fixture(scope="module")
def document(server):
    return requests.get(server.url + "/admin/v1/openapi.json", timeout=5).json()


def resolve(document, node):
    while isinstance(node, dict) and "$ref" in node:
        path = node["$ref"].lstrip("#/").split("/")
        node = document
        for part in path:
            node = node[part]
    return node


def has_example(document, media):
    if "example" in media or "examples" in media:
        return True
    schema = resolve(document, media.get("schema", {}))
    if "examples" in schema:
        return True
    items = resolve(document, schema.get("items", {})) if schema.get("type") == "array" else {}
    properties = [resolve(document, p) for p in schema.get("properties", {}).values()]
    return "examples" in items or any("examples" in resolve(document, p.get("items", {})) for p in properties)


def test_the_document_is_valid_openapi(document):
    validate(document)
    assert document["openapi"].startswith("3.1")


def test_every_operation_has_a_summary_tags_and_examples(document):
    operations = [(path, method, item[method]) for path, item in document["paths"].items() for method in METHODS if method in item]
    assert len(operations) == 14  # twelve plus a user's second factors: list and reset
    declared_tags = {tag["name"] for tag in document["tags"]}
    for path, method, operation in operations:
        where = f"{method.upper()} {path}"
        assert operation.get("summary"), f"{where} has no summary"
        assert operation.get("tags") and set(operation["tags"]) <= declared_tags, f"{where} has no declared tag"
        body = operation.get("requestBody", {}).get("content", {}).get("application/json")
        if body is not None:
            assert has_example(document, body), f"{where}: no example request"
        success = [r for code, r in operation["responses"].items() if code.startswith("2")]
        for response in success:
            for media in response.get("content", {}).values():
                assert has_example(document, media), f"{where}: no example response"
        problem = resolve(document, operation["responses"]["404"])["content"]["application/problem+json"]
        assert has_example(document, problem)


def test_the_oauth2_scheme_issues_what_the_api_accepts(server, document):
    assert document["servers"][0]["url"] == server.url
    scheme = document["components"]["securitySchemes"]["oauth2"]
    assert scheme["type"] == "oauth2"
    flow = scheme["flows"]["clientCredentials"]
    assert "admin" in flow["scopes"]
    assert document["security"] == [{"oauth2": ["admin"]}]
    # The token URL in the document, used as written, gives a token the API takes.
    issued = requests.post(flow["tokenUrl"], data={"grant_type": "client_credentials", "scope": "admin"},
                           auth=("admin-app", ADMIN_SECRET), timeout=5)
    assert issued.status_code == 200, issued.text
    listed = requests.get(document["servers"][0]["url"] + "/admin/v1/users",
                          headers={"Authorization": "Bearer " + issued.json()["access_token"]}, timeout=5)
    assert listed.status_code == 200
