import Foundation
import GatehouseHTTP
import GatehouseIdentity

/// The OpenAPI 3.1 description of `/admin/v1/`, served at `/admin/v1/openapi.json`, validated by
/// openapi-spec-validator and checked against the implementation by schemathesis (e2e/admin/).
enum AdminOpenAPI {
    /// The document with `servers` and the token URL at this deployment's issuer (the public URL).
    static func document(issuer: String) -> [UInt8] {
        var escaped = ""
        JSONText.appendString(issuer, to: &escaped)
        return Array(json.replacingOccurrences(of: "\"@ISSUER@", with: escaped.dropLast()).utf8)
    }

    private static let problem = ##"{"description": "An RFC 9457 problem", "content": {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}}"##
    private static let errors = ##""400": \##(problem), "401": \##(problem), "403": \##(problem), "404": \##(problem), "429": {"description": "Too many requests from this admin client (rate_limits.admin_api_per_client); wait Retry-After seconds", "headers": {"Retry-After": {"schema": {"type": "integer"}}}, "content": {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}}"##
    private static let userId = ##"{"name": "id", "in": "path", "required": true, "schema": {"type": "string", "minLength": 1, "maxLength": 128}}"##
    private static let userResponse = ##"{"description": "The user", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/User"}}}}"##

    private static let auditTypes = "[" + AuditEventType.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ") + "]"

    private static let json = ##"""
    {
      "openapi": "3.1.0",
      "info": {"title": "Gatehouse admin API", "version": "1.0.0",
               "description": "Accounts, sessions, identities and audit log. Authorize with a client-credentials access token carrying the admin scope, from a client registered with admin: true."},
      "servers": [{"url": "@ISSUER@", "description": "This Gatehouse (its public URL)"}],
      "tags": [{"name": "users", "description": "Accounts"}, {"name": "sessions", "description": "Signed-in browser and app sessions"},
               {"name": "identities", "description": "Linked sign-in providers"}, {"name": "factors", "description": "Second factors and WebAuthn credentials"},
               {"name": "audit", "description": "The per-user audit log"}],
      "security": [{"oauth2": ["admin"]}],
      "paths": {
        "/admin/v1/users": {
          "get": {"operationId": "listUsers", "tags": ["users"], "summary": "List users (email search, cursor pagination)",
            "parameters": [
              {"name": "q", "in": "query", "schema": {"type": "string", "maxLength": 254}},
              {"name": "cursor", "in": "query", "schema": {"type": "string", "pattern": "^[0-9]{1,15}[.][!-~]{1,200}$"}},
              {"name": "limit", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": 1000}}],
            "responses": {"200": {"description": "A page of users", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/UserPage"}}}}, \##(errors)}},
          "post": {"operationId": "createUser", "tags": ["users"], "summary": "Create a user",
            "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/NewUser"}}}},
            "responses": {"201": \##(userResponse), "409": \##(problem), \##(errors)}}
        },
        "/admin/v1/users/{id}": {
          "parameters": [\##(userId)],
          "get": {"operationId": "showUser", "summary": "Show one user", "tags": ["users"], "responses": {"200": \##(userResponse), \##(errors)}},
          "patch": {"operationId": "updateUser", "summary": "Change a user's email, name or verification", "tags": ["users"],
            "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/UserChange"}}}},
            "responses": {"200": \##(userResponse), "409": \##(problem), \##(errors)}},
          "delete": {"operationId": "deleteUser", "summary": "Delete a user, their sessions, tokens and identities", "tags": ["users"], "responses": {"204": {"description": "Deleted"}, \##(errors)}}
        },
        "/admin/v1/users/{id}/disable": {
          "parameters": [\##(userId)],
          "post": {"operationId": "disableUser", "summary": "Disable a user (ends their sessions and tokens)", "tags": ["users"], "responses": {"200": \##(userResponse), \##(errors)}}
        },
        "/admin/v1/users/{id}/enable": {
          "parameters": [\##(userId)],
          "post": {"operationId": "enableUser", "summary": "Enable a disabled user", "tags": ["users"], "responses": {"200": \##(userResponse), \##(errors)}}
        },
        "/admin/v1/users/{id}/sessions": {
          "parameters": [\##(userId)],
          "get": {"operationId": "listSessions", "summary": "List a user's active sessions", "tags": ["sessions"], "responses": {"200": {"description": "Active sessions", "content": {"application/json": {"schema": {
            "type": "object", "required": ["sessions"], "properties": {"sessions": {"type": "array", "items": {"$ref": "#/components/schemas/Session"}}}}}}}, \##(errors)}}
        },
        "/admin/v1/users/{id}/sessions/{session}": {
          "parameters": [\##(userId), {"name": "session", "in": "path", "required": true, "schema": {"type": "string", "minLength": 1}}],
          "delete": {"operationId": "endSession", "summary": "End one of a user's sessions", "tags": ["sessions"], "responses": {"204": {"description": "Ended"}, \##(errors)}}
        },
        "/admin/v1/users/{id}/identities": {
          "parameters": [\##(userId)],
          "get": {"operationId": "listIdentities", "summary": "List a user's linked provider identities", "tags": ["identities"], "responses": {"200": {"description": "Linked identities", "content": {"application/json": {"schema": {
            "type": "object", "required": ["identities"], "properties": {"identities": {"type": "array", "items": {"$ref": "#/components/schemas/Identity"}}}}}}}, \##(errors)}}
        },
        "/admin/v1/users/{id}/identities/{provider}/{subject}": {
          "parameters": [\##(userId),
            {"name": "provider", "in": "path", "required": true, "schema": {"type": "string", "minLength": 1}},
            {"name": "subject", "in": "path", "required": true, "schema": {"type": "string", "minLength": 1}}],
          "delete": {"operationId": "unlinkIdentity", "summary": "Unlink a provider identity (not the last way to sign in)", "tags": ["identities"], "responses": {"204": {"description": "Unlinked"}, "409": \##(problem), \##(errors)}}
        },
        "/admin/v1/users/{id}/factors": {
          "parameters": [\##(userId)],
          "get": {"operationId": "listFactors", "summary": "List a user's second factors and passkeys", "tags": ["factors"], "responses": {"200": {"description": "The factors", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Factors"}}}}, \##(errors)}}
        },
        "/admin/v1/users/{id}/factors/reset": {
          "parameters": [\##(userId)],
          "post": {"operationId": "resetFactors", "summary": "Remove a user's authenticator app and recovery codes (the password and passkeys stay)", "tags": ["factors"], "responses": {"204": {"description": "Reset"}, \##(errors)}}
        },
        "/admin/v1/users/{id}/audit": {
          "parameters": [\##(userId)],
          "get": {"operationId": "readAudit", "summary": "Read a user's audit log, newest first", "tags": ["audit"],
            "parameters": [
              {"name": "type", "in": "query", "schema": {"type": "string", "enum": \##(auditTypes)}},
              {"name": "limit", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": 1000}}],
            "responses": {"200": {"description": "Audit entries, newest first", "content": {"application/json": {"schema": {
              "type": "object", "required": ["events"], "properties": {"events": {"type": "array", "items": {"$ref": "#/components/schemas/AuditEvent"}}}}}}}, \##(errors)}}
        }
      },
      "components": {
        "securitySchemes": {"oauth2": {"type": "oauth2", "description": "An access token from the client-credentials grant, for a client registered with admin: true (gatehouse client create --admin), sent as Authorization: Bearer.",
          "flows": {"clientCredentials": {"tokenUrl": "@ISSUER@/oauth/token", "scopes": {"admin": "Manage accounts, sessions and identities"}}}}},
        "schemas": {
          "Problem": {"type": "object", "examples": [{"type": "about:blank", "title": "Not Found", "status": 404, "detail": "No user with this id."}], "required": ["type", "title", "status"], "properties": {
            "type": {"type": "string"}, "title": {"type": "string"}, "status": {"type": "integer"}, "detail": {"type": "string"}}},
          "User": {"type": "object", "additionalProperties": false, "examples": [{"id": "usr_01J9Z3", "email": "ada@example.com", "name": "Ada Lovelace", "email_verified": true, "disabled": false, "has_password": true, "created_at": "2026-12-01T09:30:00Z", "updated_at": "2026-12-01T09:30:00Z"}],
            "required": ["id", "email", "name", "email_verified", "disabled", "has_password", "created_at", "updated_at"],
            "properties": {"id": {"type": "string"}, "email": {"type": "string"}, "name": {"type": ["string", "null"]},
              "email_verified": {"type": "boolean"}, "disabled": {"type": "boolean"}, "has_password": {"type": "boolean"},
              "created_at": {"type": "string", "format": "date-time"}, "updated_at": {"type": "string", "format": "date-time"}}},
          "UserPage": {"type": "object", "examples": [{"users": [], "next_cursor": null}], "required": ["users", "next_cursor"], "properties": {
            "users": {"type": "array", "items": {"$ref": "#/components/schemas/User"}}, "next_cursor": {"type": ["string", "null"]}}},
          "NewUser": {"type": "object", "additionalProperties": false, "examples": [{"email": "grace@example.com", "name": "Grace Hopper", "email_verified": true}], "required": ["email"], "properties": {
            "email": {"type": "string", "maxLength": 254, "pattern": "^[A-Za-z0-9]{1,20}([._+-][A-Za-z0-9]{1,20}){0,2}@[A-Za-z0-9]{1,20}([-][A-Za-z0-9]{1,20})?([.][A-Za-z0-9]{1,20}){0,3}[.][A-Za-z]{2,10}$"}, "name": {"type": "string", "maxLength": 200},
            "password": {"type": "string", "description": "Printable ASCII, 10 to 256 characters, not a common password or the email", "pattern": "^[!-~][ -~]{9,255}$"}, "email_verified": {"type": "boolean"}}},
          "UserChange": {"type": "object", "additionalProperties": false, "examples": [{"name": "Grace B. Hopper"}], "properties": {
            "email": {"type": "string", "maxLength": 254, "pattern": "^[A-Za-z0-9]{1,20}([._+-][A-Za-z0-9]{1,20}){0,2}@[A-Za-z0-9]{1,20}([-][A-Za-z0-9]{1,20})?([.][A-Za-z0-9]{1,20}){0,3}[.][A-Za-z]{2,10}$"}, "name": {"type": ["string", "null"], "maxLength": 200},
            "email_verified": {"type": "boolean"}}},
          "Session": {"type": "object", "examples": [{"id": "ses_5Q2", "created_at": "2026-12-01T09:30:00Z", "last_seen_at": "2026-12-01T10:00:00Z", "expires_at": "2026-12-15T10:00:00Z", "ip": "203.0.113.7", "user_agent": "Mozilla/5.0", "methods": ["pwd"]}], "required": ["id", "created_at", "last_seen_at", "expires_at", "ip", "user_agent", "methods"],
            "properties": {"id": {"type": "string"}, "created_at": {"type": "string", "format": "date-time"},
              "last_seen_at": {"type": "string", "format": "date-time"}, "expires_at": {"type": "string", "format": "date-time"},
              "ip": {"type": ["string", "null"]}, "user_agent": {"type": ["string", "null"]}, "methods": {"type": "array", "items": {"type": "string"}}}},
          "Identity": {"type": "object", "examples": [{"provider": "github", "subject": "583231", "email": "ada@example.com", "email_verified": true, "private_relay": false, "created_at": "2026-12-01T09:30:00Z", "last_used_at": "2026-12-01T09:30:00Z"}], "required": ["provider", "subject", "email", "email_verified", "private_relay", "created_at", "last_used_at"],
            "properties": {"provider": {"type": "string"}, "subject": {"type": "string"}, "email": {"type": ["string", "null"]},
              "email_verified": {"type": "boolean"}, "private_relay": {"type": "boolean"},
              "created_at": {"type": "string", "format": "date-time"}, "last_used_at": {"type": "string", "format": "date-time"}}},
          "Factors": {"type": "object", "additionalProperties": false, "examples": [{"totp": true, "webauthn_second_step": false, "recovery_codes_left": 9, "second_step_required": true, "webauthn": [{"id": "AQID", "name": "YubiKey", "synced": false, "created_at": "2026-12-01T09:30:00Z", "last_used_at": null}]}],
            "required": ["totp", "webauthn_second_step", "recovery_codes_left", "second_step_required", "webauthn"],
            "properties": {"totp": {"type": "boolean"}, "webauthn_second_step": {"type": "boolean"}, "recovery_codes_left": {"type": "integer", "minimum": 0}, "second_step_required": {"type": "boolean"},
              "webauthn": {"type": "array", "items": {"type": "object", "additionalProperties": false, "required": ["id", "name", "synced", "created_at", "last_used_at"],
                "properties": {"id": {"type": "string"}, "name": {"type": "string"}, "synced": {"type": "boolean"}, "created_at": {"type": "string", "format": "date-time"},
                  "last_used_at": {"type": ["string", "null"], "format": "date-time"}}}}}},
          "AuditEvent": {"type": "object", "examples": [{"sequence": 42, "type": "sign_in.succeeded", "occurred_at": "2026-12-01T09:30:00Z", "ip": "203.0.113.7", "user_agent": "Mozilla/5.0", "details": {}}], "required": ["sequence", "type", "occurred_at", "ip", "user_agent", "details"],
            "properties": {"sequence": {"type": "integer"}, "type": {"type": "string"}, "occurred_at": {"type": "string", "format": "date-time"},
              "ip": {"type": ["string", "null"]}, "user_agent": {"type": ["string", "null"]}, "details": {"type": "object"}}}
        }
      }
    }
    """##
}
