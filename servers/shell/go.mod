module github.com/jck411/mcp-servers/servers/shell

go 1.25.0

require github.com/jck411/mcp-servers/shared v0.0.0

require mvdan.cc/sh/v3 v3.13.1 // indirect

replace github.com/jck411/mcp-servers/shared => ../../shared
