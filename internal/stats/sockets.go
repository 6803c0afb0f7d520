package stats

import (
	"encoding/binary"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// SocketBytes are the bytes each TCP socket of a process has sent (and
// had acknowledged) and received, from the kernel's tcp_info, by socket
// inode: what crossed its connections, TLS and all, without its headers.
type SocketBytes map[uint32][2]uint64

// Since sums what the sockets sent and received since before (a socket
// not in before counts whole; one closed since counts nothing).
func (s SocketBytes) Since(before SocketBytes) (sent, received uint64) {
	for ino, b := range s {
		a := before[ino]
		if b[0] >= a[0] && b[1] >= a[1] {
			sent, received = sent+b[0]-a[0], received+b[1]-a[1]
		}
	}
	return sent, received
}

// ReadSocketBytes reads the TCP sockets pid holds (IPv4 and IPv6), asking
// the kernel over netlink (sock_diag) for each one's tcp_info.
func ReadSocketBytes(pid int) (SocketBytes, error) {
	inodes, err := socketInodes(pid)
	if err != nil {
		return nil, err
	}
	out := SocketBytes{}
	for _, family := range []uint8{unix.AF_INET, unix.AF_INET6} {
		if err := tcpDiag(family, func(ino uint32, info *unix.TCPInfo) {
			if inodes[ino] {
				out[ino] = [2]uint64{info.Bytes_acked, info.Bytes_received}
			}
		}); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// socketInodes are the inodes of the sockets pid has open.
func socketInodes(pid int) (map[uint32]bool, error) {
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	fds, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("process %d: %w", pid, err)
	}
	inodes := map[uint32]bool{}
	for _, fd := range fds {
		link, err := os.Readlink(dir + "/" + fd.Name())
		if n, ok := strings.CutPrefix(link, "socket:["); ok && err == nil {
			if ino, err := strconv.ParseUint(strings.TrimSuffix(n, "]"), 10, 32); err == nil {
				inodes[uint32(ino)] = true
			}
		}
	}
	return inodes, nil
}

// inet_diag's wire forms (linux/inet_diag.h): the request, and the
// message header each socket's reply starts with.
const (
	inetDiagInfo   = 2  // INET_DIAG_INFO: the tcp_info attribute
	inetDiagReqLen = 56 // struct inet_diag_req_v2
	inetDiagMsgLen = 72 // struct inet_diag_msg
	inodeOffset    = 68 // inet_diag_msg.idiag_inode
	allStates      = 0xffffffff
)

// tcpDiag dumps every TCP socket of family with its tcp_info to each.
func tcpDiag(family uint8, each func(inode uint32, info *unix.TCPInfo)) error {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, unix.NETLINK_SOCK_DIAG)
	if err != nil {
		return fmt.Errorf("sock_diag: %w", err)
	}
	defer unix.Close(fd)
	req := make([]byte, unix.NLMSG_HDRLEN+inetDiagReqLen)
	binary.NativeEndian.PutUint32(req[0:], uint32(len(req)))
	binary.NativeEndian.PutUint16(req[4:], unix.SOCK_DIAG_BY_FAMILY)
	binary.NativeEndian.PutUint16(req[6:], unix.NLM_F_REQUEST|unix.NLM_F_DUMP)
	body := req[unix.NLMSG_HDRLEN:]
	body[0], body[1], body[2] = family, unix.IPPROTO_TCP, 1<<(inetDiagInfo-1)
	binary.NativeEndian.PutUint32(body[4:], allStates)
	if err := unix.Sendto(fd, req, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return fmt.Errorf("sock_diag: %w", err)
	}
	buf := make([]byte, 1<<16)
	for {
		n, _, err := unix.Recvfrom(fd, buf, 0)
		if err != nil {
			return fmt.Errorf("sock_diag: %w", err)
		}
		msgs, err := syscall.ParseNetlinkMessage(buf[:n])
		if err != nil {
			return fmt.Errorf("sock_diag: %w", err)
		}
		for _, m := range msgs {
			switch m.Header.Type {
			case unix.NLMSG_DONE:
				return nil
			case unix.NLMSG_ERROR:
				return fmt.Errorf("sock_diag: the kernel refused the dump")
			}
			diagMessage(m.Data, each)
		}
	}
}

// diagMessage reads one socket's reply: its inode and tcp_info attribute.
func diagMessage(data []byte, each func(uint32, *unix.TCPInfo)) {
	if len(data) < inetDiagMsgLen {
		return
	}
	inode := binary.NativeEndian.Uint32(data[inodeOffset:])
	attrs := data[inetDiagMsgLen:]
	for len(attrs) >= unix.SizeofRtAttr {
		l := int(binary.NativeEndian.Uint16(attrs[0:]))
		typ := binary.NativeEndian.Uint16(attrs[2:])
		if l < unix.SizeofRtAttr || l > len(attrs) {
			return
		}
		if typ == inetDiagInfo {
			var info unix.TCPInfo
			copy(unsafe.Slice((*byte)(unsafe.Pointer(&info)), unsafe.Sizeof(info)), attrs[unix.SizeofRtAttr:l])
			each(inode, &info)
		}
		attrs = attrs[(l+unix.RTA_ALIGNTO-1)&^(unix.RTA_ALIGNTO-1):]
		if len(attrs) == 0 {
			break
		}
	}
}
