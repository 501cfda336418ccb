package sqlstore

// SetWordsDriven sets the most users a keyword search reads from its
// words (wordsDriven) and returns a function that restores it. Tests that
// call it do not run in parallel.
func SetWordsDriven(n int) (restore func()) {
	old := wordsDriven
	wordsDriven = n
	return func() { wordsDriven = old }
}
