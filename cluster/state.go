package cluster

import (
	"bytes"
	"encoding/gob"
	"fmt"

	"github.com/schedsim/schedsim/workload"
)

// Checkpoint encodings (used by sim's checkpoints). They use encoding/gob on
// mirror structs, so fields can be added without breaking old readers; a
// checkpoint file carries its own format version besides.

type machineState struct {
	Size, Free int
	Spans      []Range
}

// MarshalBinary encodes the machine's allocation state.
func (m *Machine) MarshalBinary() ([]byte, error) {
	return encodeState(machineState{Size: m.size, Free: m.free, Spans: m.spans})
}

// UnmarshalBinary restores a state MarshalBinary encoded. It returns an
// error if the state is not consistent (free ranges that overlap, are out
// of order or do not add up to the free count).
func (m *Machine) UnmarshalBinary(b []byte) error {
	var s machineState
	if err := decodeState(b, &s); err != nil {
		return fmt.Errorf("cluster: machine state: %w", err)
	}
	if s.Size <= 0 {
		return fmt.Errorf("cluster: machine state: size %d", s.Size)
	}
	n, prev := 0, -1
	for _, r := range s.Spans {
		if r.Lo <= prev || r.Hi <= r.Lo || r.Hi > s.Size {
			return fmt.Errorf("cluster: machine state: bad free range %d-%d", r.Lo, r.Hi)
		}
		n += r.Len()
		prev = r.Hi
	}
	if n != s.Free {
		return fmt.Errorf("cluster: machine state: free ranges hold %d processors, free count %d", n, s.Free)
	}
	m.size, m.free, m.spans = s.Size, s.Free, s.Spans
	m.base = m.spans
	return nil
}

type profileState struct {
	Size  int
	At    []workload.Time
	Freed []int
}

// MarshalBinary encodes the profile.
func (p *Profile) MarshalBinary() ([]byte, error) {
	s := profileState{Size: p.size, At: make([]workload.Time, len(p.steps)), Freed: make([]int, len(p.steps))}
	for i, st := range p.steps {
		s.At[i], s.Freed[i] = st.at, st.free
	}
	return encodeState(s)
}

// UnmarshalBinary restores a profile MarshalBinary encoded.
func (p *Profile) UnmarshalBinary(b []byte) error {
	var s profileState
	if err := decodeState(b, &s); err != nil {
		return fmt.Errorf("cluster: profile state: %w", err)
	}
	if len(s.At) != len(s.Freed) {
		return fmt.Errorf("cluster: profile state: %d times, %d counts", len(s.At), len(s.Freed))
	}
	p.size = s.Size
	p.steps = p.steps[:0]
	for i := range s.At {
		if i > 0 && s.At[i] <= s.At[i-1] {
			return fmt.Errorf("cluster: profile state: steps out of order at %d", i)
		}
		p.steps = append(p.steps, step{at: s.At[i], free: s.Freed[i]})
	}
	return nil
}

func encodeState(v any) ([]byte, error) {
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func decodeState(b []byte, v any) error {
	return gob.NewDecoder(bytes.NewReader(b)).Decode(v)
}
