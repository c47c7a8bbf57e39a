package scenarios

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"strings"
)

//go:embed html/explain.html.tmpl
var explainHTML string

// explainTemplate renders one scenario's page; parsed once, read-only
// afterwards, so sharing it between servers and goroutines is safe.
var explainTemplate = template.Must(template.New("explain").Funcs(template.FuncMap{
	"add": func(a, b int) int { return a + b },
	"sub": func(a, b int) int { return a - b },
	// trimEnd turns a stream's end class into its cap's ("end-cut" → "cut").
	"trimEnd": func(s string) string { return strings.TrimPrefix(s, "end-") },
}).Parse(explainHTML))

// htmlPage is what the template sees.
type htmlPage struct {
	Scenario  *Scenario
	Questions []Question
	Result    *Result
	Diagram   *diagram
}

// WriteHTML writes a self-contained HTML page (inline CSS and SVG, nothing
// fetched from the network) that explains sc with the run res: the
// questions it answers, the explanation, and res's timeline as a sequence
// diagram with a lane per client and one for the server, a resourceVersion
// axis shaded below the compaction and watch-cache horizons, and every
// request, response, event, write, fault, client decision, check and note.
// The page depends only on sc and res, so the same run gives the same
// bytes.
func WriteHTML(w io.Writer, sc *Scenario, res *Result) error {
	p := htmlPage{Scenario: sc, Questions: sc.Questions(), Result: res, Diagram: layoutDiagram(res.Timeline)}
	if err := explainTemplate.Execute(w, p); err != nil {
		return fmt.Errorf("scenarios: html of %s: %w", sc.Name, err)
	}
	return nil
}
