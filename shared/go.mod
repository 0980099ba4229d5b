module github.com/jck411/mcp-servers/shared

go 1.25.0
