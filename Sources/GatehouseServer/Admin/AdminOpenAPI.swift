import Foundation
import GatehouseIdentity

/// The OpenAPI 3.1 description of `/admin/v1/`, served at `/admin/v1/openapi.json` and checked
/// against the implementation by schemathesis (e2e/admin/).
enum AdminOpenAPI {
    static let document: [UInt8] = Array(json.utf8)

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
      "security": [{"bearer": []}],
      "paths": {
        "/admin/v1/users": {
          "get": {"operationId": "listUsers", "summary": "List users (email search, cursor pagination)",
            "parameters": [
              {"name": "q", "in": "query", "schema": {"type": "string", "maxLength": 254}},
              {"name": "cursor", "in": "query", "schema": {"type": "string", "pattern": "^[0-9]{1,15}[.][!-~]{1,200}$"}},
              {"name": "limit", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": 1000}}],
            "responses": {"200": {"description": "A page of users", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/UserPage"}}}}, \##(errors)}},
          "post": {"operationId": "createUser", "summary": "Create a user",
            "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/NewUser"}}}},
            "responses": {"201": \##(userResponse), "409": \##(problem), \##(errors)}}
        },
        "/admin/v1/users/{id}": {
          "parameters": [\##(userId)],
          "get": {"operationId": "showUser", "responses": {"200": \##(userResponse), \##(errors)}},
          "patch": {"operationId": "updateUser",
            "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/UserChange"}}}},
            "responses": {"200": \##(userResponse), "409": \##(problem), \##(errors)}},
          "delete": {"operationId": "deleteUser", "responses": {"204": {"description": "Deleted"}, \##(errors)}}
        },
        "/admin/v1/users/{id}/disable": {
          "parameters": [\##(userId)],
          "post": {"operationId": "disableUser", "responses": {"200": \##(userResponse), \##(errors)}}
        },
        "/admin/v1/users/{id}/enable": {
          "parameters": [\##(userId)],
          "post": {"operationId": "enableUser", "responses": {"200": \##(userResponse), \##(errors)}}
        },
        "/admin/v1/users/{id}/sessions": {
          "parameters": [\##(userId)],
          "get": {"operationId": "listSessions", "responses": {"200": {"description": "Active sessions", "content": {"application/json": {"schema": {
            "type": "object", "required": ["sessions"], "properties": {"sessions": {"type": "array", "items": {"$ref": "#/components/schemas/Session"}}}}}}}, \##(errors)}}
        },
        "/admin/v1/users/{id}/sessions/{session}": {
          "parameters": [\##(userId), {"name": "session", "in": "path", "required": true, "schema": {"type": "string", "minLength": 1}}],
          "delete": {"operationId": "endSession", "responses": {"204": {"description": "Ended"}, \##(errors)}}
        },
        "/admin/v1/users/{id}/identities": {
          "parameters": [\##(userId)],
          "get": {"operationId": "listIdentities", "responses": {"200": {"description": "Linked identities", "content": {"application/json": {"schema": {
            "type": "object", "required": ["identities"], "properties": {"identities": {"type": "array", "items": {"$ref": "#/components/schemas/Identity"}}}}}}}, \##(errors)}}
        },
        "/admin/v1/users/{id}/identities/{provider}/{subject}": {
          "parameters": [\##(userId),
            {"name": "provider", "in": "path", "required": true, "schema": {"type": "string", "minLength": 1}},
            {"name": "subject", "in": "path", "required": true, "schema": {"type": "string", "minLength": 1}}],
          "delete": {"operationId": "unlinkIdentity", "responses": {"204": {"description": "Unlinked"}, "409": \##(problem), \##(errors)}}
        },
        "/admin/v1/users/{id}/audit": {
          "parameters": [\##(userId)],
          "get": {"operationId": "readAudit",
            "parameters": [
              {"name": "type", "in": "query", "schema": {"type": "string", "enum": \##(auditTypes)}},
              {"name": "limit", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": 1000}}],
            "responses": {"200": {"description": "Audit entries, newest first", "content": {"application/json": {"schema": {
              "type": "object", "required": ["events"], "properties": {"events": {"type": "array", "items": {"$ref": "#/components/schemas/AuditEvent"}}}}}}}, \##(errors)}}
        }
      },
      "components": {
        "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer", "bearerFormat": "JWT"}},
        "schemas": {
          "Problem": {"type": "object", "required": ["type", "title", "status"], "properties": {
            "type": {"type": "string"}, "title": {"type": "string"}, "status": {"type": "integer"}, "detail": {"type": "string"}}},
          "User": {"type": "object", "additionalProperties": false,
            "required": ["id", "email", "name", "email_verified", "disabled", "has_password", "created_at", "updated_at"],
            "properties": {"id": {"type": "string"}, "email": {"type": "string"}, "name": {"type": ["string", "null"]},
              "email_verified": {"type": "boolean"}, "disabled": {"type": "boolean"}, "has_password": {"type": "boolean"},
              "created_at": {"type": "string", "format": "date-time"}, "updated_at": {"type": "string", "format": "date-time"}}},
          "UserPage": {"type": "object", "required": ["users", "next_cursor"], "properties": {
            "users": {"type": "array", "items": {"$ref": "#/components/schemas/User"}}, "next_cursor": {"type": ["string", "null"]}}},
          "NewUser": {"type": "object", "additionalProperties": false, "required": ["email"], "properties": {
            "email": {"type": "string", "maxLength": 254, "pattern": "^[A-Za-z0-9]{1,20}([._+-][A-Za-z0-9]{1,20}){0,2}@[A-Za-z0-9]{1,20}([-][A-Za-z0-9]{1,20})?([.][A-Za-z0-9]{1,20}){0,3}[.][A-Za-z]{2,10}$"}, "name": {"type": "string", "maxLength": 200},
            "password": {"type": "string", "description": "Printable ASCII, 10 to 256 characters, not a common password or the email", "pattern": "^[!-~][ -~]{9,255}$"}, "email_verified": {"type": "boolean"}}},
          "UserChange": {"type": "object", "additionalProperties": false, "properties": {
            "email": {"type": "string", "maxLength": 254, "pattern": "^[A-Za-z0-9]{1,20}([._+-][A-Za-z0-9]{1,20}){0,2}@[A-Za-z0-9]{1,20}([-][A-Za-z0-9]{1,20})?([.][A-Za-z0-9]{1,20}){0,3}[.][A-Za-z]{2,10}$"}, "name": {"type": ["string", "null"], "maxLength": 200},
            "email_verified": {"type": "boolean"}}},
          "Session": {"type": "object", "required": ["id", "created_at", "last_seen_at", "expires_at", "ip", "user_agent", "methods"],
            "properties": {"id": {"type": "string"}, "created_at": {"type": "string", "format": "date-time"},
              "last_seen_at": {"type": "string", "format": "date-time"}, "expires_at": {"type": "string", "format": "date-time"},
              "ip": {"type": ["string", "null"]}, "user_agent": {"type": ["string", "null"]}, "methods": {"type": "array", "items": {"type": "string"}}}},
          "Identity": {"type": "object", "required": ["provider", "subject", "email", "email_verified", "private_relay", "created_at", "last_used_at"],
            "properties": {"provider": {"type": "string"}, "subject": {"type": "string"}, "email": {"type": ["string", "null"]},
              "email_verified": {"type": "boolean"}, "private_relay": {"type": "boolean"},
              "created_at": {"type": "string", "format": "date-time"}, "last_used_at": {"type": "string", "format": "date-time"}}},
          "AuditEvent": {"type": "object", "required": ["sequence", "type", "occurred_at", "ip", "user_agent", "details"],
            "properties": {"sequence": {"type": "integer"}, "type": {"type": "string"}, "occurred_at": {"type": "string", "format": "date-time"},
              "ip": {"type": ["string", "null"]}, "user_agent": {"type": ["string", "null"]}, "details": {"type": "object"}}}
        }
      }
    }
    """##
}
