package main

import (
	"testing"

	"github.com/jck411/mcp-servers/shared/agenttask"
	"github.com/jck411/mcp-servers/shared/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestAgentTasks runs the calculator's part of the agent task suite (docs/agent-tasks.md).
func TestAgentTasks(t *testing.T) {
	t.Parallel()
	h := mcptest.Start(t, spec())
	agenttask.Run(t, "calculator", func(t *testing.T) *mcp.ClientSession { return h.Connect(t, "") }, calculatorTasks)
}

var calculatorTasks = []agenttask.Task{
	{Name: "mortgage-payment", Ask: "What is the monthly payment on a $300,000 30-year mortgage at 5%? Round to cents.",
		Run: func(a *agenttask.Agent) {
			text := a.Call("evaluate", map[string]any{"expression": "300000 * (0.05/12) * (1+0.05/12)^360 / ((1+0.05/12)^360 - 1)", "precision": 6})
			a.Has(a.Find(text, "the payment", `^(\d+\.\d+)`), "1610.46")
		}},
	{Name: "recipe-in-metric", Ask: "My recipe needs 2.5 cups of milk and bakes at 350 °F. What is that in millilitres and °C?",
		Run: func(a *agenttask.Agent) {
			ml := a.Call("convert_units", map[string]any{"value": 2.5, "from": "cup", "to": "mL"})
			a.Find(ml, "the millilitres", `[=≈] (591\.\d+) mL`)
			c := a.Call("convert_units", map[string]any{"value": 350, "from": "°F", "to": "°C"})
			a.Find(c, "the Celsius value", `[=≈] (176\.\d+) °C`)
		}},
	{Name: "mean-then-statistics", Ask: "What's the average and the spread of my run times 31, 29.5, 33, 30.2 and 28.8 minutes?",
		Run: func(a *agenttask.Agent) {
			// A model first tries mean(…) as an expression; the error must send it to statistics.
			hint := a.CallError("evaluate", map[string]any{"expression": "mean(31, 29.5, 33, 30.2, 28.8)"})
			a.Has(hint, "statistics")
			text := a.Call("statistics", map[string]any{"values": []float64{31, 29.5, 33, 30.2, 28.8}})
			a.Find(text, "the mean", `mean\D+30\.5`)
			a.Find(text, "the standard deviation", `sample variance [\d.]+, sd (1\.6\d*)`)
		}},
}
