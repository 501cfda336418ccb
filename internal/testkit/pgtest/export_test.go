package pgtest

// StatPPID exposes statPPID to the external tests.
var StatPPID = statPPID
