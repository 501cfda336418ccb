package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// readNoEcho reads a line from the terminal f with its echo off.
func readNoEcho(f *os.File) (string, error) {
	fd := int(f.Fd())
	old, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		return readLine(f)
	}
	quiet := *old
	quiet.Lflag &^= unix.ECHO
	quiet.Lflag |= unix.ICANON | unix.ISIG
	if err := unix.IoctlSetTermios(fd, unix.TCSETS, &quiet); err != nil {
		return readLine(f)
	}
	defer unix.IoctlSetTermios(fd, unix.TCSETS, old)
	return readLine(f)
}
