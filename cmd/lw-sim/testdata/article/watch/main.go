package main


import (
    "context"
    "fmt"


    metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
    "k8s.io/apimachinery/pkg/watch"
    "k8s.io/client-go/kubernetes"
    "k8s.io/client-go/tools/clientcmd"
)


func main() {


    // 从 kubeconfig 文件中构建配置
    config, err := clientcmd.BuildConfigFromFlags("", "./k8s_watch/kubeconfig-local.conf")
    if err != nil {
       panic(err.Error())
    }


    // 创建 Kubernetes 客户端
    clientset, err := kubernetes.NewForConfig(config)
    if err != nil {
       panic(err.Error())
    }


    watcher, err := clientset.CoreV1().Pods("default").Watch(context.TODO(), metav1.ListOptions{})
    if err != nil {
       panic(err.Error())
    }


    // 通过通道接收 Watch 事件
    ch := watcher.ResultChan()


    // 处理 Watch 事件
    for event := range ch {
       switch event.Type {
       case watch.Added:
          fmt.Println("Pod added: %v\n", event)
       case watch.Modified:
          fmt.Println("Pod modified: %v\n", event)
       case watch.Deleted:
          fmt.Println("Pod deleted: %v\n", event)
       case watch.Bookmark:
          fmt.Println("Pod bookmark: %v\n", event)
       case watch.Error:
          fmt.Println("Error occurred while watching pods")
       }
    }
}
