// Package sdnotify tells systemd about a service's state (READY=1, STOPPING=1) through the
// socket named by $NOTIFY_SOCKET, as Type=notify units expect.
package sdnotify

import (
	"fmt"
	"net"
	"strings"
)

// Ready is sent once the server accepts connections.
const Ready = "READY=1"

// Stopping is sent when shutdown begins.
const Stopping = "STOPPING=1"

// Notify sends state to the socket; with no socket (not under systemd) it does nothing.
func Notify(socket, state string) error {
	if socket == "" {
		return nil
	}
	if strings.HasPrefix(socket, "@") {
		socket = "\x00" + socket[1:] // abstract namespace
	}
	conn, err := net.DialUnix("unixgram", nil, &net.UnixAddr{Name: socket, Net: "unixgram"})
	if err != nil {
		return fmt.Errorf("sd_notify: %w", err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte(state)); err != nil {
		return fmt.Errorf("sd_notify %s: %w", state, err)
	}
	return nil
}
