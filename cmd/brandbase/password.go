package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// readPassword reads a new password: from a prompt when standard input is
// a terminal (typed twice, not echoed where the terminal allows it), else
// the first line of standard input. A password is never taken from the
// command line, where other users and shell histories see it.
func (c *cli) readPassword(what string) (string, error) {
	if f, ok := c.stdin.(*os.File); ok && isTerminal(f) {
		fmt.Fprintf(c.stderr, "%s: ", what)
		p1, err := readNoEcho(f)
		fmt.Fprintln(c.stderr)
		if err != nil {
			return "", fmt.Errorf("read the password: %w", err)
		}
		fmt.Fprintf(c.stderr, "%s again: ", what)
		p2, err := readNoEcho(f)
		fmt.Fprintln(c.stderr)
		if err != nil {
			return "", fmt.Errorf("read the password: %w", err)
		}
		if p1 != p2 {
			return "", errors.New("the two passwords differ: run the command again")
		}
		if p1 == "" {
			return "", errors.New("no password typed: run the command again")
		}
		return p1, nil
	}
	line, err := bufio.NewReader(c.stdin).ReadString('\n')
	line = strings.TrimRight(line, "\r\n")
	if line == "" {
		if err != nil && !errors.Is(err, io.EOF) {
			return "", fmt.Errorf("read the password from standard input: %w", err)
		}
		return "", errors.New("no password on standard input: pipe it in (printf '%s\\n' \"$PASSWORD\" | brandbase ...) or run the command on a terminal to be prompted")
	}
	return line, nil
}

// isTerminal reports whether f is a terminal (a character device).
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// readLine reads one line from f, without its line end.
func readLine(f *os.File) (string, error) {
	var b []byte
	one := make([]byte, 1)
	for {
		n, err := f.Read(one)
		if n == 1 {
			if one[0] == '\n' {
				break
			}
			b = append(b, one[0])
		}
		if err != nil {
			if len(b) > 0 {
				break
			}
			return "", err
		}
	}
	return strings.TrimRight(string(b), "\r"), nil
}
