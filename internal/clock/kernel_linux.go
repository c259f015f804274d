package clock

import (
	"bytes"
	"os"
)

// kernelUsesTSC reports whether the kernel's clocksource is the TSC: it
// picks it only once it has found the counters of all CPUs in step and
// stable, and leaves it when they are not.
func kernelUsesTSC() bool {
	b, err := os.ReadFile("/sys/devices/system/clocksource/clocksource0/current_clocksource")
	return err == nil && string(bytes.TrimSpace(b)) == "tsc"
}
