//go:build !linux

package main

import "os"

// readNoEcho reads a line from the terminal f; on this system the typed
// password is echoed (pipe it on standard input to avoid that).
func readNoEcho(f *os.File) (string, error) { return readLine(f) }
