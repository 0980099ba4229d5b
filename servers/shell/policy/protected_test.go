package policy

import "testing"

func TestProtectedDir(t *testing.T) {
	cases := []struct {
		p, home string
		want    bool
	}{
		{"/", "/home/ada", true},
		{"/etc", "/home/ada", true},
		{"/usr", "", true},
		{"/home/ada", "/home/ada", true},
		{"/home", "/home/ada", true},
		{"/home/ada/projects", "/home/ada", false},
		{"/etc/nginx", "/home/ada", false},
		{"/srv/data", "", false},
	}
	for _, tc := range cases {
		if got := ProtectedDir(tc.p, tc.home); got != tc.want {
			t.Errorf("ProtectedDir(%q, %q) = %v, want %v", tc.p, tc.home, got, tc.want)
		}
	}
}
