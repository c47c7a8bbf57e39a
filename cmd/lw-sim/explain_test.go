package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestExplain(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(t.Context(), runTestTimeout)
	defer cancel()
	var stdout, stderr bytes.Buffer
	if err := run(ctx, []string{"explain", "expired-continue"}, &stdout, &stderr); err != nil {
		t.Fatalf("run(explain expired-continue) = %v, want nil; stdout:\n%s", err, stdout.String())
	}
	out := stdout.String()
	for _, want := range []string{
		"expired-continue\n================",
		"Q: Can a list request be paged? How does chunking work?",
		"list 请求可以分页吗？Chunk 实现机制是怎样的？",
		"In short: ",
		"FullListIfExpired",           // the explanation
		"410 Gone Status 410 Expired", // the timeline
		"metadata.continue <token rv=-1 after=item-01>",
		"PASS: the fake behaved as described.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("explain expired-continue output lacks %q:\n%s", want, out)
		}
	}
}
