module github.com/jck411/mcp-servers/scripts

go 1.25.0

require github.com/jck411/mcp-servers/shared v0.0.0

replace github.com/jck411/mcp-servers/shared => ../shared
