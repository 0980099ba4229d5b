package main

import (
	"slices"
	"strings"
	"testing"
)

func TestParseDoorServers(t *testing.T) {
	f, err := parseResources("calculator=https://calc.example.com/mcp,notes=https://notes.example.com/mcp")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		in, want, err string
	}{
		{"notes=http://127.0.0.1:9009/,calculator=http://127.0.0.1:9003", "calculator notes", ""},
		{"", "", ""},
		{"gmail=http://127.0.0.1:9005", "", "gmail is not in --resources"},
		{"notes=http://127.0.0.1:9009,notes=http://127.0.0.1:9010", "", "named twice"},
		{"notes=127.0.0.1:9009", "", "give NAME=URL"},
		{"notes=http://127.0.0.1:9009/mcp", "", "give NAME=URL"},
		{"notes", "", "give NAME=URL"},
	} {
		got, err := parseDoorServers(c.in, f)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: error %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		var names []string
		for _, s := range got {
			names = append(names, s.Name)
			if strings.HasSuffix(s.Base, "/") {
				t.Errorf("%q: base %q keeps its slash", c.in, s.Base)
			}
		}
		if strings.Join(names, " ") != c.want {
			t.Errorf("%q: %v, want %s", c.in, names, c.want)
		}
	}
}

func TestResolveDoor(t *testing.T) {
	f, err := parseResources("calculator=https://calc.example.com/mcp,notes=https://notes.example.com/mcp,gmail=https://gmail.example.com/mcp")
	if err != nil {
		t.Fatal(err)
	}
	const door = "https://auth.example.com/mcp"
	f.door, f.doorNames = door, []string{"calculator", "notes"} // gmail is not behind the door
	for _, c := range []struct {
		resource, scopes, want, err string
	}{
		{door, "", "calculator:read calculator:write notes:read notes:write", ""},
		{door, "notes:read gmail:write offline_access", "notes:read", ""},
		{door, "gmail:read", "calculator:read calculator:write notes:read notes:write", ""},
		{door + "/readonly", "notes:write calculator:read", "calculator:read", ""},
		{door + "/readonly", "", "calculator:read notes:read", ""},
		{door + "/x/notes", "", "notes:read notes:write", ""},
		{door + "/x/notes", "calculator:read", "notes:read notes:write", ""},
		{door + "/x/notes/readonly", "", "notes:read", ""},
		{door + "/x/math", "calculator:write", "calculator:write", ""},
		{door + "/x/gmail", "", "calculator:read calculator:write notes:read notes:write", ""}, // a toolset name for the door
		{"https://notes.example.com/mcp", "calculator:read", "notes:read notes:write", ""},
	} {
		res, got, err := f.resolve([]string{c.resource}, strings.Fields(c.scopes))
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s %q: error %v, want %q", c.resource, c.scopes, err, c.err)
			}
			continue
		}
		if err != nil || res != c.resource || !slices.Equal(got, strings.Fields(c.want)) {
			t.Errorf("%s %q: %s %v %v, want %s", c.resource, c.scopes, res, got, err, c.want)
		}
	}
	f.door = ""
	if _, _, err := f.resolve([]string{door}, nil); err == nil {
		t.Error("the door's resource was accepted with the door off")
	}
}
