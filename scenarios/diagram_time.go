package scenarios

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// The time scale of the diagram. Rows at the same virtual time are
// stacked in the order they happened, with no space between them; the
// virtual time that passes between two rows is drawn as a band to scale
// (diagPxPerSecond) up to diagScaleLimit, and longer idle spans as a
// broken band that grows with the logarithm of the span: a 30-minute
// timeout is a break labelled 30m, an 8-second bookmark interval 64 px.
const (
	diagPxPerSecond = 8
	diagScaleLimit  = 10 * time.Second
	// diagGapMin keeps a band of a few milliseconds visible.
	diagGapMin = 6
	// diagBreakH is the height of a break for a span just over the
	// limit; diagBreakPerDoubling is added per doubling beyond.
	diagBreakH           = 44
	diagBreakPerDoubling = 6
)

// diagGap is the virtual time passing between two rows.
type diagGap struct {
	Y, H int
	// MidY is where the label goes.
	MidY int
	// Label says how long ("8s", "29m59s").
	Label string
	// Break is true when the band is not to scale.
	Break bool
	// Ticks are the whole seconds within a band to scale.
	Ticks []int
	// Zigzag is the path of a break's two jagged edges.
	Zigzag string
}

// newGap is the band from y for the time from a to b (a < b), across a
// diagram width wide.
func newGap(y, width int, a, b Offset) diagGap {
	d := time.Duration(b - a)
	g := diagGap{Y: y, Label: d.String()}
	if d <= diagScaleLimit {
		g.H = max(diagGapMin, int(math.Round(d.Seconds()*diagPxPerSecond)))
		// A tick on the ruler at every whole second of the band.
		first := time.Duration(a).Truncate(time.Second) + time.Second
		for t := first; t < time.Duration(b); t += time.Second {
			g.Ticks = append(g.Ticks, y+int(math.Round((t-time.Duration(a)).Seconds()*diagPxPerSecond)))
		}
	} else {
		g.Break = true
		g.H = diagBreakH + int(math.Round(diagBreakPerDoubling*math.Log2(float64(d)/float64(diagScaleLimit))))
	}
	g.MidY = y + g.H/2
	if g.Break {
		g.Zigzag = zigzag(y+6, width) + " " + zigzag(y+g.H-6, width)
	}
	return g
}

// zigzag is an SVG path across width at y, jagged 3 px up and down.
func zigzag(y, width int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "M0,%d", y)
	for x, up := 8, true; x <= width; x, up = x+8, !up {
		dy := 3
		if up {
			dy = -3
		}
		fmt.Fprintf(&b, " L%d,%d", x, y+dy)
	}
	return b.String()
}
