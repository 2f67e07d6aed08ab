package typed

// Message is one chat message of a Messages field, in the shape LangGraph's
// add_messages merges: by ID, replacing a message with the same ID in place
// and appending a new one. A message written without an ID gets a random
// one. Fields beyond these three are not kept.
type Message struct {
	ID      string `json:"id,omitempty"` // "" gets a random id when merged
	Role    string `json:"role"`         // "user", "assistant", "system", "tool"
	Content string `json:"content"`      // the text
}

// Messages is a chat history. A state field of this type is an add_messages
// channel without a tag; a node's write to it is the messages to merge.
type Messages []Message
