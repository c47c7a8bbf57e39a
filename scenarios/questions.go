package scenarios

// QuestionID names one of the List & Watch article's nine questions (its
// section 7; README.md, "The List & Watch article").
type QuestionID string

// The nine questions, in the article's order.
const (
	QWatchResourceVersion QuestionID = "watch-rv"
	QWatchProtocol        QuestionID = "watch-protocol"
	QWatchPushOrPull      QuestionID = "watch-push"
	QWatchTimeout         QuestionID = "watch-timeout"
	QWatchBreaks          QuestionID = "watch-breaks"
	QWatchLostEvents      QuestionID = "watch-lost-events"
	QListHuge             QuestionID = "list-huge"
	QListPaging           QuestionID = "list-paging"
	QListResourceVersion  QuestionID = "list-rv"
)

// Question is one question of the article, in English and in the article's
// own Chinese words.
type Question struct {
	ID      QuestionID
	English string
	Chinese string
}

// questions are the article's nine questions, verbatim in Chinese.
var questions = []Question{
	{QWatchResourceVersion, "What is the difference between a watch with and without a resourceVersion?", "watch 请求传递 resource version 和不传递 resource version 区别是什么？"},
	{QWatchProtocol, "How does a watch request talk to the apiserver?", "watch 请求 apiserver 是如何交互的？"},
	{QWatchPushOrPull, "Are watched changes pushed by the apiserver or pulled by the client?", "watch 到的事件变更，是 apiserver 推送还是客户端拉取的？"},
	{QWatchTimeout, "Do watch requests time out?", "watch 请求会有超时问题吗？"},
	{QWatchBreaks, "Does a watch connection break once established? When?", "watch 请求建立连接后会断链吗？什么情况下会断链？"},
	{QWatchLostEvents, "Can change events be lost after a watch succeeded?", "watch 成功后会丢失变更事件吗？"},
	{QListHuge, "What if the listed resources are many, the data is large and one request takes too long?", "如果查询的资源过多，数据量过大，一次请求响应时间过长怎么办？"},
	{QListPaging, "Can a list request be paged? How does chunking work?", "list 请求可以分页吗？Chunk 实现机制是怎样的？"},
	{QListResourceVersion, "What is the difference between a list with and without a resourceVersion?", "list 请求传递 resource version 和不传递 resource version 区别是什么？"},
}

// Questions returns the article's nine questions in its order. The slice is
// a copy.
func Questions() []Question {
	return append([]Question(nil), questions...)
}

// LookupQuestion returns the question with id.
func LookupQuestion(id QuestionID) (Question, bool) {
	for _, q := range questions {
		if q.ID == id {
			return q, true
		}
	}
	return Question{}, false
}
