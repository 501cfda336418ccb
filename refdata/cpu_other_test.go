//go:build !unix

package refdata_test

import "time"

// cpuTime returns 0: the CPU time used is read on Unix only.
func cpuTime() time.Duration { return 0 }
