// Package openapi describes a server's tools as an OpenAPI 3.1 document: each tool a
// POST /tools/{name} operation whose request body is the tool's input schema and whose 200
// answer carries its output schema, every error the JSON envelope {"error":{"code","message"}}.
// OpenAPI 3.1 schemas are JSON Schema 2020-12, the dialect MCP tool schemas are written in, so
// the schemas go in unchanged.
package openapi

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
)

// Version is the OpenAPI version of the documents Build writes.
const Version = "3.1.1"

// Tool is one tool as tools/list shows it.
type Tool struct {
	Name         string          `json:"name"`
	Title        string          `json:"title,omitempty"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"inputSchema,omitempty"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Annotations  json.RawMessage `json:"annotations,omitempty"`
}

// Info is what the document says of the server.
type Info struct {
	Title       string // the server's title or id
	Version     string // the server's version
	Description string // the server's instructions, for the reader
	Base        string // the path the tool paths hang under ("" for the root, "/x/notes" when narrowed)
	Bearer      bool   // the server takes bearer tokens: every operation needs one
}

// statuses are the error answers an operation may give, with what each means; the envelope's
// code says more.
func statuses() map[int]string {
	return map[int]string{
		http.StatusBadRequest:            "invalid: the arguments do not fit the input schema, or the body is no JSON object",
		http.StatusUnauthorized:          "unauthorized: no token, or one this server does not accept",
		http.StatusForbidden:             "insufficient_scope or declined: the token may not call this tool, or the owner declined it",
		http.StatusNotFound:              "not_found: no such tool here, or the thing it names does not exist",
		http.StatusConflict:              "disabled: the owner switched the tool off at run time",
		http.StatusRequestEntityTooLarge: "too_large: the body is over the server's --max-body-bytes",
		http.StatusUnprocessableEntity:   "tool_error or limit: the tool ran and failed; the message says why",
		http.StatusInternalServerError:   "internal: a bug in the server, logged",
		http.StatusServiceUnavailable:    "unavailable or cancelled: a dependency cannot be used now, or the call was stopped",
		http.StatusGatewayTimeout:        "timeout: the tool did not finish within its timeout",
	}
}

type object = map[string]any

// Build returns the document describing tools, in the order given.
func Build(info Info, tools []Tool) ([]byte, error) {
	paths := object{}
	for _, t := range tools {
		op, err := operation(t, info.Bearer)
		if err != nil {
			return nil, err
		}
		paths["/tools/"+t.Name] = object{"post": op}
	}
	components := object{
		"schemas": object{"Error": object{
			"type":     "object",
			"required": []string{"error"},
			"properties": object{"error": object{
				"type":     "object",
				"required": []string{"code", "message"},
				"properties": object{
					"code":    object{"type": "string", "description": "invalid, unauthorized, not_found, disabled, timeout, insufficient_scope, declined, too_large, tool_error, limit, unavailable, cancelled, internal"},
					"message": object{"type": "string", "description": "what went wrong and what to do"},
				},
			}},
		}},
		"responses": errorResponses(),
	}
	doc := object{
		"openapi": Version,
		"info": object{
			"title":       info.Title,
			"version":     info.Version,
			"description": info.Description,
		},
		"servers":    []object{{"url": cmp.Or(info.Base, "/")}},
		"paths":      paths,
		"components": components,
	}
	if info.Bearer {
		components["securitySchemes"] = object{"bearer": object{"type": "http", "scheme": "bearer"}}
		doc["security"] = []object{{"bearer": []string{}}}
	}
	return json.MarshalIndent(doc, "", "  ")
}

// operation is the POST of one tool.
func operation(t Tool, bearer bool) (object, error) {
	in, err := schemaOf(t.InputSchema, object{"type": "object"})
	if err != nil {
		return nil, fmt.Errorf("openapi: %s input schema: %w", t.Name, err)
	}
	result := object{"type": "object", "description": "the tool's structured result"}
	if out, err := schemaOf(t.OutputSchema, nil); err != nil {
		return nil, fmt.Errorf("openapi: %s output schema: %w", t.Name, err)
	} else if out != nil {
		result = out
	}
	responses := object{
		"200": object{
			"description": "the tool's result: structured, and as the text a model reads",
			"content": object{"application/json": object{"schema": object{
				"type":     "object",
				"required": []string{"text"},
				"properties": object{
					"result": result,
					"text":   object{"type": "string", "description": "the result as text"},
				},
			}}},
		},
	}
	for status := range statuses() {
		if status == http.StatusUnauthorized && !bearer {
			continue
		}
		code := strconv.Itoa(status)
		responses[code] = object{"$ref": "#/components/responses/" + code}
	}
	op := object{
		"operationId": t.Name,
		"summary":     cmp.Or(t.Title, t.Name),
		"description": t.Description,
		"requestBody": object{
			"required": true,
			"content":  object{"application/json": object{"schema": in}},
		},
		"responses": responses,
	}
	if len(t.Annotations) > 0 {
		var a any
		if err := json.Unmarshal(t.Annotations, &a); err != nil {
			return nil, fmt.Errorf("openapi: %s annotations: %w", t.Name, err)
		}
		op["x-mcp-annotations"] = a
	}
	return op, nil
}

// errorResponses are the shared error answers, each the envelope.
func errorResponses() object {
	out := object{}
	for status, desc := range statuses() {
		out[strconv.Itoa(status)] = object{
			"description": desc,
			"content": object{"application/json": object{"schema": object{
				"$ref": "#/components/schemas/Error",
			}}},
		}
	}
	return out
}

// schemaOf decodes a JSON schema, or returns def when there is none.
func schemaOf(raw json.RawMessage, def object) (object, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return def, nil
	}
	var s object
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, err
	}
	return s, nil
}
