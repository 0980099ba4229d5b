package editdist

import "testing"

func TestOSA(t *testing.T) {
	tests := []struct {
		a, b  string
		limit int
		want  int
	}{
		{"wolf", "wolf", 2, 0},
		{"wolf", "wolv", 2, 1},
		{"wolf", "wlof", 2, 1}, // a swap of neighbours is one edit
		{"runnig", "running", 2, 1},
		{"kelvin", "kevlin", 2, 1},
		{"abc", "", 2, 3}, // over the limit: limit+1
		{"abcdef", "uvwxyz", 2, 3},
		{"°C", "°F", 1, 1}, // runes, not bytes
		{"", "", 0, 0},
	}
	for _, tt := range tests {
		if got := OSA([]rune(tt.a), []rune(tt.b), tt.limit); got != tt.want {
			t.Errorf("OSA(%q, %q, %d) = %d, want %d", tt.a, tt.b, tt.limit, got, tt.want)
		}
	}
}
