package netguard

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"syscall"
)

// Netlink sock_diag (linux/sock_diag.h, linux/inet_diag.h): asking the kernel for one TCP
// socket by its exact address pair costs one round trip, where /proc/net/tcp makes the kernel
// print every bucket of the connection hash table (milliseconds on a big host).
const (
	netlinkSockDiag   = 4  // NETLINK_SOCK_DIAG
	sockDiagByFamily  = 20 // SOCK_DIAG_BY_FAMILY
	nlmsgHdrLen       = 16
	inetDiagReqLen    = 56 // struct inet_diag_req_v2
	inetDiagMsgLen    = 72 // struct inet_diag_msg
	inetDiagNoCookie  = ^uint32(0)
	diagAllTCPStates  = ^uint32(0)
	diagUIDOffset     = 64 // idiag_uid in struct inet_diag_msg
	diagInodeOffset   = 68 // idiag_inode
	diagSockIDOffset  = 8  // id in struct inet_diag_req_v2
	nlmsgErrorMinSize = nlmsgHdrLen + 4
)

// errNoNetlink means sock_diag is not available here (no AF_NETLINK), as opposed to an answer.
var errNoNetlink = errors.New("netlink sock_diag unavailable")

// diagSocket asks the kernel for the TCP socket whose local end is src and remote end is dst,
// and returns its owner's uid and its inode. It tries the IPv4 table, then the IPv6 one
// (a dual-stack socket connecting to an IPv4 address is in the IPv6 table, IPv4-mapped).
func diagSocket(src, dst netip.AddrPort) (uid, inode uint64, err error) {
	fd, err := syscall.Socket(syscall.AF_NETLINK, syscall.SOCK_DGRAM|syscall.SOCK_CLOEXEC, netlinkSockDiag)
	if err != nil {
		return 0, 0, fmt.Errorf("%w: %w", errNoNetlink, err)
	}
	defer func() { _ = syscall.Close(fd) }()
	tv := syscall.Timeval{Sec: 1}
	if err := syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, syscall.SO_RCVTIMEO, &tv); err != nil {
		return 0, 0, fmt.Errorf("sock_diag: %w", err)
	}
	families := []uint8{syscall.AF_INET6}
	if src.Addr().Unmap().Is4() && dst.Addr().Unmap().Is4() {
		families = []uint8{syscall.AF_INET, syscall.AF_INET6}
	}
	for _, fam := range families {
		uid, inode, err = diagOne(fd, fam, src, dst)
		if !errors.Is(err, syscall.ENOENT) {
			return uid, inode, err
		}
	}
	return 0, 0, fmt.Errorf("the client socket %s is not in the socket table", src)
}

func diagOne(fd int, family uint8, src, dst netip.AddrPort) (uid, inode uint64, err error) {
	ne := binary.NativeEndian
	req := make([]byte, nlmsgHdrLen+inetDiagReqLen)
	ne.PutUint32(req[0:], uint32(len(req)))
	ne.PutUint16(req[4:], sockDiagByFamily)
	ne.PutUint16(req[6:], syscall.NLM_F_REQUEST)
	ne.PutUint32(req[8:], 1) // sequence
	r := req[nlmsgHdrLen:]
	r[0] = family
	r[1] = syscall.IPPROTO_TCP
	ne.PutUint32(r[4:], diagAllTCPStates)
	id := r[diagSockIDOffset:]
	binary.BigEndian.PutUint16(id[0:], src.Port())
	binary.BigEndian.PutUint16(id[2:], dst.Port())
	putDiagAddr(id[4:20], src.Addr(), family)
	putDiagAddr(id[20:36], dst.Addr(), family)
	ne.PutUint32(id[40:], inetDiagNoCookie)
	ne.PutUint32(id[44:], inetDiagNoCookie)
	if err := syscall.Sendto(fd, req, 0, &syscall.SockaddrNetlink{Family: syscall.AF_NETLINK}); err != nil {
		return 0, 0, fmt.Errorf("sock_diag request: %w", err)
	}
	buf := make([]byte, 4096)
	n, from, err := syscall.Recvfrom(fd, buf, 0)
	if err != nil {
		return 0, 0, fmt.Errorf("sock_diag answer: %w", err)
	}
	if nl, ok := from.(*syscall.SockaddrNetlink); !ok || nl.Pid != 0 {
		return 0, 0, errors.New("sock_diag answer: not from the kernel")
	}
	msg := buf[:n]
	if len(msg) < nlmsgHdrLen || int(ne.Uint32(msg[0:])) > len(msg) {
		return 0, 0, errors.New("sock_diag answer: truncated")
	}
	if ne.Uint32(msg[8:]) != 1 {
		return 0, 0, errors.New("sock_diag answer: to another request")
	}
	switch typ := ne.Uint16(msg[4:]); typ {
	case syscall.NLMSG_ERROR:
		if len(msg) < nlmsgErrorMinSize {
			return 0, 0, errors.New("sock_diag answer: truncated error")
		}
		if code := int32(ne.Uint32(msg[nlmsgHdrLen:])); code != 0 {
			return 0, 0, fmt.Errorf("sock_diag: %w", syscall.Errno(-code))
		}
		return 0, 0, errors.New("sock_diag answer: an acknowledgement instead of the socket")
	case sockDiagByFamily:
	default:
		return 0, 0, fmt.Errorf("sock_diag answer: unexpected message type %d", typ)
	}
	if len(msg) < nlmsgHdrLen+inetDiagMsgLen {
		return 0, 0, errors.New("sock_diag answer: truncated socket")
	}
	d := msg[nlmsgHdrLen:]
	// The kernel answers with the socket it found; make sure it is the one asked for.
	got := d[4:52]
	if !bytes.Equal(got[0:36], id[0:36]) {
		return 0, 0, errors.New("sock_diag answer: a different socket")
	}
	uid, inode = uint64(ne.Uint32(d[diagUIDOffset:])), uint64(ne.Uint32(d[diagInodeOffset:]))
	if inode == 0 {
		return 0, 0, fmt.Errorf("the client socket %s is closing", src)
	}
	return uid, inode, nil
}

// putDiagAddr writes a as the kernel's __be32[4] address: IPv4 in the first word, IPv6 (an
// IPv4 address IPv4-mapped) in all four.
func putDiagAddr(dst []byte, a netip.Addr, family uint8) {
	if family == syscall.AF_INET {
		b := a.Unmap().As4()
		copy(dst, b[:])
		return
	}
	b := a.As16()
	copy(dst, b[:])
}
