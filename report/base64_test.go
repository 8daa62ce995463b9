package report

import (
	"bytes"
	"encoding/base64"
	"math/rand/v2"
	"testing"

	"codeberg.org/go-fonts/liberation/liberationsansregular"
)

// TestAppendBase64 checks appendBase64 against the standard encoder on
// every length up to a few groups past its eight-byte steps, and on a
// long random buffer, appended to a non-empty slice.
func TestAppendBase64(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 64))
	src := make([]byte, 1<<16+7)
	for i := range src {
		src[i] = byte(rng.Uint32())
	}
	lengths := []int{len(src)}
	for n := range 40 {
		lengths = append(lengths, n)
	}
	for _, n := range lengths {
		prefix := []byte(`"data":"`)
		want := base64.StdEncoding.AppendEncode(bytes.Clone(prefix), src[:n])
		if got := appendBase64(bytes.Clone(prefix), src[:n]); !bytes.Equal(got, want) {
			t.Errorf("%d bytes: appendBase64 = %.40q…, want %.40q…", n, got, want)
		}
	}
}

// FuzzAppendBase64 checks appendBase64 against the standard encoder.
func FuzzAppendBase64(f *testing.F) {
	f.Add([]byte("schedsim"), []byte{})
	f.Add([]byte{0xff, 0xfe, 0, 1, 2, 3, 4, 5, 6, 7, 8}, []byte("x"))
	f.Fuzz(func(t *testing.T, src, prefix []byte) {
		want := base64.StdEncoding.AppendEncode(bytes.Clone(prefix), src)
		if got := appendBase64(bytes.Clone(prefix), src); !bytes.Equal(got, want) {
			t.Errorf("appendBase64(%q) = %q, want %q", src, got, want)
		}
	})
}

// TestFontFace checks the page's embedded font, made in one buffer, against
// the declaration spelled out with the standard library's encoder.
func TestFontFace(t *testing.T) {
	want := `@font-face { font-family: "Liberation Sans"; src: url(data:font/ttf;base64,` +
		base64.StdEncoding.EncodeToString(liberationsansregular.TTF) + `) format("truetype"); }`
	if got := string(fontFace()); got != want {
		t.Errorf("font face of %d bytes differs from the %d expected", len(got), len(want))
	}
}
