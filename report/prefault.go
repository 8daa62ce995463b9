package report

// prefaultMin is the smallest buffer prefault asks the kernel to back at
// once: below a few pages the call costs more than the faults it saves.
const prefaultMin = 64 << 10
