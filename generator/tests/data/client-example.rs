use client_features_client::Client;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let client = Client::builder().base_url("http://127.0.0.1:8080").build()?;
    client.delete_things(&[1, 2]).await?;
    Ok(())
}
