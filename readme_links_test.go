package schedsim

import (
	"os"
	"regexp"
	"testing"
)

// TestREADMEImages: every image the README shows is in the repository
// (docs/fidelity/generate.sh draws the fidelity plots).
func TestREADMEImages(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	imgs := regexp.MustCompile(`!\[[^\]]*\]\(([^)]+)\)`).FindAllSubmatch(b, -1)
	if len(imgs) == 0 {
		t.Fatal("the README shows no image: the fidelity plots are gone")
	}
	for _, m := range imgs {
		if _, err := os.Stat(string(m[1])); err != nil {
			t.Errorf("README shows %s: %v", m[1], err)
		}
	}
}
