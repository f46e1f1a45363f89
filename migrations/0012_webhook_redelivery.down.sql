ALTER TABLE webhook_deliveries DROP COLUMN redeliveries, DROP COLUMN round_start;
