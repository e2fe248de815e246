//go:build !race

package controllerbench

const raceEnabled = false
