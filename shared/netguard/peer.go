package netguard

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/jck411/mcp-servers/shared/proctree"
	"golang.org/x/sys/unix"
)

// maxDepth bounds the walk from a process up to the browser: Chromium's helpers are its
// children (zygote, utility and renderer processes) or grandchildren.
const maxDepth = 16

// maxDescendants bounds the browser's descendants searched for the client socket's holder.
const maxDescendants = 4096

// peers decides whether a connection to the proxy comes from the browser the server started:
// the client's socket, found by its address pair (netlink sock_diag, else /proc/net/tcp{,6}),
// must belong to the server's uid and be open in the browser process or one of its descendants. Anything it
// cannot establish is a refusal.
type peers struct {
	proc string // the proc filesystem, "/proc"
	tree proctree.Tree
	uid  uint64

	mu    sync.Mutex
	root  int    // the browser's pid; 0 = nobody may connect
	start uint64 // root's start time, so a reused pid is not taken for the browser
	hint  int    // the process that held the last accepted socket (the network service)
}

func newPeers(proc string) *peers {
	return &peers{proc: proc, tree: proctree.Tree{Root: proc}, uid: uint64(os.Getuid())}
}

// allow makes pid's process tree the only one that may connect; 0 refuses everyone.
func (c *peers) allow(pid int) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.root, c.start, c.hint = 0, 0, 0
	if pid == 0 {
		return nil
	}
	_, start, err := c.stat(pid)
	if err != nil {
		return fmt.Errorf("netguard: browser process %d: %w", pid, err)
	}
	c.root, c.start = pid, start
	return nil
}

// check returns nil when conn's client is the browser, or why it is refused.
func (c *peers) check(conn net.Conn) error {
	client, err1 := netip.ParseAddrPort(conn.RemoteAddr().String())
	server, err2 := netip.ParseAddrPort(conn.LocalAddr().String())
	if err1 != nil || err2 != nil {
		return fmt.Errorf("not a TCP connection (%s)", conn.RemoteAddr())
	}
	uid, inode, err := c.socket(client, server)
	if err != nil {
		return err
	}
	if uid != c.uid {
		return fmt.Errorf("the client runs as uid %d, not as the browser's uid %d", uid, c.uid)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.root == 0 {
		return errors.New("no browser is running")
	}
	if _, start, err := c.stat(c.root); err != nil || start != c.start {
		return fmt.Errorf("the browser process %d is gone", c.root)
	}
	link := "socket:[" + strconv.FormatUint(inode, 10) + "]"
	tried := map[int]bool{}
	try := func(pid int) bool {
		if pid == 0 || tried[pid] {
			return false
		}
		tried[pid] = true
		return c.holds(pid, link) && c.descends(pid)
	}
	if try(c.hint) || try(c.root) {
		return nil
	}
	for _, pid := range c.tree.Descendants(c.root, maxDescendants) {
		if try(pid) {
			c.hint = pid
			return nil
		}
	}
	return fmt.Errorf("the client socket (inode %d) is not open in the browser's processes", inode)
}

// socket finds the client's end of the connection client->server and returns its owner's uid
// and its inode: through netlink sock_diag, or /proc/net/tcp{,6} where netlink is unavailable.
func (c *peers) socket(client, server netip.AddrPort) (uid, inode uint64, err error) {
	if c.proc == "/proc" {
		uid, inode, err = diagSocket(client, server)
		if !errors.Is(err, errNoNetlink) {
			return uid, inode, err
		}
	}
	return c.procSocket(client, server)
}

// procSocket is socket through /proc/net/tcp{,6}.
func (c *peers) procSocket(client, server netip.AddrPort) (uid, inode uint64, err error) {
	for _, table := range []string{"tcp", "tcp6"} {
		want6 := table == "tcp6"
		if !want6 && !client.Addr().Unmap().Is4() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(c.proc, "net", table))
		if err != nil {
			return 0, 0, fmt.Errorf("cannot read the socket table: %w", err)
		}
		local, remote := procAddr(client, want6), procAddr(server, want6)
		for line := range bytes.Lines(data) {
			f := strings.Fields(string(line))
			if len(f) < 10 || f[1] != local || f[2] != remote {
				continue
			}
			uid, err1 := strconv.ParseUint(f[7], 10, 32)
			inode, err2 := strconv.ParseUint(f[9], 10, 64)
			if err1 != nil || err2 != nil || inode == 0 {
				return 0, 0, fmt.Errorf("unreadable socket table entry %q", strings.TrimSpace(string(line)))
			}
			return uid, inode, nil
		}
	}
	return 0, 0, fmt.Errorf("the client socket %s is not in the socket table", client)
}

// procAddr spells ap the way /proc/net/tcp{,6} does: the address as 32-bit words in host byte
// order, each in hex, then the port in hex.
func procAddr(ap netip.AddrPort, six bool) string {
	var raw []byte
	if six {
		b := ap.Addr().As16()
		raw = b[:]
	} else {
		b := ap.Addr().Unmap().As4()
		raw = b[:]
	}
	var sb strings.Builder
	for i := 0; i < len(raw); i += 4 {
		fmt.Fprintf(&sb, "%08X", binary.NativeEndian.Uint32(raw[i:i+4]))
	}
	fmt.Fprintf(&sb, ":%04X", ap.Port())
	return sb.String()
}

// holds reports whether pid has the socket link ("socket:[inode]") among its open files. It
// reads the links relative to the fd directory, which halves the kernel's path walking.
func (c *peers) holds(pid int, link string) bool {
	dir, err := os.Open(filepath.Join(c.proc, strconv.Itoa(pid), "fd"))
	if err != nil {
		return false
	}
	defer func() { _ = dir.Close() }()
	names, err := dir.Readdirnames(-1)
	if err != nil {
		return false
	}
	dfd := int(dir.Fd())
	buf := make([]byte, 64)
	for _, n := range names {
		k, err := unix.Readlinkat(dfd, n, buf)
		if err == nil && string(buf[:k]) == link {
			return true
		}
	}
	return false
}

// descends reports whether pid is the browser or one of its descendants.
func (c *peers) descends(pid int) bool {
	for range maxDepth {
		if pid == c.root {
			return true
		}
		ppid, _, err := c.stat(pid)
		if err != nil || ppid <= 1 {
			return false
		}
		pid = ppid
	}
	return false
}

// stat reads a process's parent pid and start time from /proc/PID/stat.
func (c *peers) stat(pid int) (ppid int, start uint64, err error) {
	s, err := c.tree.Stat(pid)
	return s.PPID, s.Start, err
}
