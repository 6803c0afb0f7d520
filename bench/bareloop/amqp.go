package main

import (
	"context"
	"errors"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

// directReplyTo is RabbitMQ's direct reply-to pseudo-queue, where hopbench's
// amqp client takes its replies.
const directReplyTo = "amq.rabbitmq.reply-to"

// amqpPrefetch is the unacknowledged requests a responder holds, hopbench's
// amqp default (basic.qos).
const amqpPrefetch = 128

// amqpDial connects to the RabbitMQ of target as guest, which RabbitMQ
// allows on loopback, as hopbench's amqp stack does.
func amqpDial(target string) (*amqp.Connection, string, error) {
	host, queue := splitTarget(target, "amqp")
	conn, err := amqp.Dial("amqp://guest:guest@" + host + "/")
	return conn, queue, err
}

// serveAMQP consumes the queue of target and publishes each request's body
// back to its reply-to with its correlation id, as hopbench's amqp node:
// the queue auto-deleted, prefetch 128, manual acks, replies on a channel
// of their own. It replies in the consuming goroutine, where the node
// hands each request to a handler of its own.
func serveAMQP(ctx context.Context, target string, ready func()) error {
	conn, queue, err := amqpDial(target)
	if err != nil {
		return err
	}
	defer conn.Close()
	ch, err := conn.Channel()
	if err != nil {
		return err
	}
	if err := ch.Qos(amqpPrefetch, 0, false); err != nil {
		return err
	}
	if _, err := ch.QueueDeclare(queue, false, true, false, false, nil); err != nil {
		return err
	}
	deliveries, err := ch.Consume(queue, "", false, false, false, false, nil)
	if err != nil {
		return err
	}
	pub, err := conn.Channel()
	if err != nil {
		return err
	}
	ready()
	for {
		select {
		case <-ctx.Done():
			return nil
		case d, ok := <-deliveries:
			if !ok {
				return errors.New("amqp: the consumer ended (connection lost)")
			}
			msg := amqp.Publishing{CorrelationId: d.CorrelationId, Body: d.Body}
			if *withHeaders {
				msg.ContentType = d.ContentType
			}
			if err := pub.PublishWithContext(ctx, "", d.ReplyTo, false, false, msg); err != nil {
				return err
			}
			d.Ack(false)
		}
	}
}

// amqpCall is one request published to the queue of target with a
// correlation id, its reply coming back on direct reply-to, consumed on the
// channel it publishes on, as hopbench's amqp client; mandatory, so that a
// request no queue takes comes back and fails its call. Calls fail once
// bound has passed.
func amqpCall(target string, body []byte, bound time.Duration) (func(), func(context.Context) error) {
	conn, queue, err := amqpDial(target)
	if err != nil {
		fail(err)
	}
	ch, err := conn.Channel()
	if err != nil {
		fail(err)
	}
	deliveries, err := ch.Consume(directReplyTo, "", true, true, false, false, nil)
	if err != nil {
		fail(err)
	}
	r := newReplies(bound)
	done := make(chan struct{})
	go amqpReceive(r, deliveries, ch.NotifyReturn(make(chan amqp.Return, 64)), done)
	closeIt := func() { conn.Close(); <-done }
	return closeIt, func(ctx context.Context) error {
		id, wait, err := r.add()
		if err != nil {
			return err
		}
		msg := amqp.Publishing{CorrelationId: id, ReplyTo: directReplyTo, Body: body}
		if *withHeaders {
			msg.Headers, msg.ContentType = amqpMeta()
		}
		if err := ch.PublishWithContext(ctx, "", queue, true, false, msg); err != nil {
			r.forget(id)
			return err
		}
		return r.await(ctx, id, wait)
	}
}

// amqpReceive hands replies and returned requests to their calls until the
// connection closes, then fails the calls left, and closes done.
func amqpReceive(r *replies, deliveries <-chan amqp.Delivery, returns <-chan amqp.Return, done chan struct{}) {
	defer close(done)
	for deliveries != nil || returns != nil {
		select {
		case d, ok := <-deliveries:
			if !ok {
				deliveries = nil
				continue
			}
			r.deliver(d.CorrelationId, nil)
		case ret, ok := <-returns:
			if !ok {
				returns = nil
				continue
			}
			r.deliver(ret.CorrelationId, errors.New("amqp: request returned: "+ret.ReplyText))
		}
	}
	r.end(errors.New("amqp: connection closed"))
}

// amqpMeta is hopbenchMeta as hopbench's amqp client sends it: the content
// type as the message's property, the rest in its header table.
func amqpMeta() (amqp.Table, string) {
	t := amqp.Table{}
	for k, v := range hopbenchMeta() {
		if k != contentType {
			t[k] = v
		}
	}
	return t, "application/json"
}
