package memory

import (
	"os"
	"path/filepath"
	"testing"
)

func TestCgroupMemoryLimit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		cgroup    string
		high, max string // "" leaves the file out
		want      int64
	}{
		{"memory.high wins", "0::/system.slice/mcp-server@gmail.service\n", "402653184\n", "536870912\n", 402653184},
		{"memory.max when high is max", "0::/system.slice/mcp-server@gmail.service\n", "max\n", "536870912\n", 536870912},
		{"no limit", "0::/user.slice\n", "max\n", "max\n", 0},
		{"no files", "0::/gone\n", "", "", 0},
		{"cgroup v1 only", "12:memory:/system.slice/x.service\n", "", "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			proc := filepath.Join(dir, "cgroup")
			if err := os.WriteFile(proc, []byte(tt.cgroup), 0o600); err != nil {
				t.Fatal(err)
			}
			root := filepath.Join(dir, "fs")
			unit := filepath.Join(root, "system.slice", "mcp-server@gmail.service")
			if err := os.MkdirAll(unit, 0o700); err != nil {
				t.Fatal(err)
			}
			for name, v := range map[string]string{"memory.high": tt.high, "memory.max": tt.max} {
				if v != "" {
					if err := os.WriteFile(filepath.Join(unit, name), []byte(v), 0o600); err != nil {
						t.Fatal(err)
					}
				}
			}
			if got := cgroupMemoryLimit(proc, root); got != tt.want {
				t.Errorf("cgroupMemoryLimit = %d, want %d", got, tt.want)
			}
		})
	}
}

// GOMEMLIMIT, when the environment sets it, is left to the runtime.
func TestLimitMemoryKeepsGOMEMLIMIT(t *testing.T) {
	t.Parallel()
	getenv := func(k string) string {
		if k == "GOMEMLIMIT" {
			return "100MiB"
		}
		return ""
	}
	if got := Limit(getenv, "/nonexistent", "/nonexistent"); got != 0 {
		t.Errorf("Limit set %d despite GOMEMLIMIT", got)
	}
}
