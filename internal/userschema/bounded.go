package userschema

import (
	"fmt"
	"io"
	"os"
)

// openFile opens a file a user names (a .proto, a fill, samples) for
// reading at most limit bytes: a device, pipe or /proc file is refused (it
// says 0 bytes and may never end: /dev/zero grew a compile to 12.5 GB), a
// larger file is refused by its size, and one that grows past limit while
// it is read fails the read. what names the file's kind in errors.
func openFile(path string, limit int64, what string) (io.ReadCloser, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	switch {
	case err != nil:
	case !info.Mode().IsRegular():
		err = fmt.Errorf("%s is not a regular file (%s): give %s file", path, info.Mode().Type(), what)
	case info.Size() > limit:
		err = fmt.Errorf("%s is %d bytes, over the %d %s may have here", path, info.Size(), limit, what)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return &bounded{File: f, path: path, what: what, left: limit}, nil
}

// bounded reads a file that must not grow past what it may have.
type bounded struct {
	*os.File
	path, what string
	left       int64
}

func (b *bounded) Read(p []byte) (int, error) {
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.File.Read(p)
	if b.left -= int64(n); b.left < 0 {
		return n, fmt.Errorf("%s grew past what %s may have here while it was read", b.path, b.what)
	}
	return n, err
}

// readFile reads a whole file as openFile bounds it.
func readFile(path string, limit int64, what string) ([]byte, error) {
	f, err := openFile(path, limit, what)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}
