module github.com/jck411/mcp-servers/scripts

go 1.26.0
