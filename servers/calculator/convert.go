package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/jck411/mcp-servers/servers/calculator/units"
	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type convertInput struct {
	Value     float64 `json:"value" jsonschema:"the amount in from units"`
	From      string  `json:"from" jsonschema:"unit symbol or name, e.g. 'mi', 'kg', '°F', 'GiB', 'km/h', 'kWh'" schema:"minLength=1"`
	To        string  `json:"to" jsonschema:"unit to convert to, measuring the same kind of quantity" schema:"minLength=1"`
	Precision int     `json:"precision,omitempty" jsonschema:"significant digits when the result is not exact" schema:"minimum=1,maximum=100,default=15"`
}

type convertOutput struct {
	Result        string   `json:"result" jsonschema:"converted value: exact when exact is true, else rounded to precision"`
	Exact         bool     `json:"exact"`
	Approximation *float64 `json:"approximation,omitempty" jsonschema:"nearest float64, absent when out of its range"`
	From          string   `json:"from" jsonschema:"canonical symbol of the source unit"`
	To            string   `json:"to" jsonschema:"canonical symbol of the target unit"`
	Dimension     string   `json:"dimension" jsonschema:"the kind of quantity, e.g. length"`
	input         string
}

// Text renders the conversion as one line.
func (o convertOutput) Text() string {
	eq := "="
	if !o.Exact {
		eq = "≈"
	}
	return fmt.Sprintf("%s %s %s %s %s", o.input, o.From, eq, o.Result, o.To)
}

func addConvertUnits(s *kit.Server) {
	kit.AddTool(s, kit.Tool{
		Name:        "convert_units",
		Toolset:     toolsetMath,
		Title:       "Convert units",
		Description: "Convert a value between units of length, mass, volume, area, temperature, time, speed, data, energy, power or pressure.",
		ReadOnly:    true,
		Idempotent:  true,
		Timeout:     5 * time.Second,
	}, convertUnits)
}

func convertUnits(_ context.Context, _ *mcp.CallToolRequest, in convertInput) (*mcp.CallToolResult, convertOutput, error) {
	value := strconv.FormatFloat(in.Value, 'f', -1, 64)
	res, err := units.Convert(value, in.From, in.To, in.Precision)
	if err != nil {
		var ue *units.Error
		if errors.As(err, &ue) {
			return nil, convertOutput{}, &kit.Error{Code: kit.CodeInvalidInput, Err: ue}
		}
		return nil, convertOutput{}, kit.Errorf(kit.CodeInternal, "convert_units: %w", err)
	}
	out := convertOutput{
		Result:    res.Value,
		Exact:     res.Exact,
		From:      res.From,
		To:        res.To,
		Dimension: res.Dimension,
		input:     value,
	}
	if !math.IsInf(res.Float, 0) && (res.Float != 0 || isZero(res.Value)) {
		f := res.Float
		out.Approximation = &f
	}
	return nil, out, nil
}

// isZero reports whether a decimal result string is zero, so an underflowed float is not shown as 0.
func isZero(v string) bool {
	return strings.Trim(v, "-0.") == ""
}
