package main


import (
    "context"
    "fmt"


    metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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


    pods, err := clientset.CoreV1().Pods("default").List(context.TODO(), metav1.ListOptions{})


    for _, pod := range pods.Items {
       fmt.Println(pod.Name)
    }
}
