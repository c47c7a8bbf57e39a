package fake_test

import (
	"context"
	"runtime"
	"testing"

	"go.uber.org/goleak"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientfake "k8s.io/client-go/kubernetes/fake"

	"github.com/lw-sim/lw-sim/fakeclientset/fake"
)

// TestDropIn: the constructor returns client-go's *fake.Clientset type,
// its requests reach a server (a seeded pod has a uid and the server's
// defaults), and once the clientset is dropped and collected the server
// is closed: no goroutine is left.
func TestDropIn(t *testing.T) {
	use := func() {
		var cs *clientfake.Clientset = fake.NewSimpleClientset(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c"}})
		got, err := cs.CoreV1().ConfigMaps("ns").Get(context.Background(), "c", metav1.GetOptions{})
		if err != nil || got.UID == "" {
			t.Errorf("Get = %v, %v; want the server's config map", got, err)
		}
		if n := len(cs.Actions()); n != 1 {
			t.Errorf("len(Actions()) = %d, want 1", n)
		}
	}
	use()
	runtime.GC()
	runtime.GC()
	// goleak retries while the cleanup closes the server.
	goleak.VerifyNone(t)
}
