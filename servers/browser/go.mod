module github.com/jck411/mcp-servers/servers/browser

go 1.25.0

require github.com/jck411/mcp-servers/shared v0.0.0

require (
	github.com/chromedp/cdproto v0.159.0 // indirect
	github.com/chromedp/chromedp v0.23.0 // indirect
	github.com/go-json-experiment/json v0.0.0-20260213210345-44df1a37e875 // indirect
)

replace github.com/jck411/mcp-servers/shared => ../../shared
